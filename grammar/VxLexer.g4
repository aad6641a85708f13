// Lexical grammar of Vx. Comments and whitespace are skipped; any character
// no rule accepts becomes ERROR_CHAR on the hidden channel, so the lexer never
// reports by itself: src/parse turns those tokens into E0002 diagnostics.
// Unterminated block comments and invalid UTF-8 are found by the byte
// pre-scan in src/parse/Prescan.cpp before this lexer runs.
lexer grammar VxLexer;

FN       : 'fn';
EXTERN   : 'extern';
CONST    : 'const';
LET      : 'let';
MUT      : 'mut';
FOR      : 'for';
IN       : 'in';
WHILE    : 'while';
IF       : 'if';
ELSE     : 'else';
RETURN   : 'return';
BREAK    : 'break';
CONTINUE : 'continue';
PARALLEL : 'parallel';
ON       : 'on';
AS       : 'as';
TRUE     : 'true';
FALSE    : 'false';

FLOAT
  : DIGITS '.' DIGITS EXPONENT? FLOAT_SUFFIX?
  | DIGITS EXPONENT FLOAT_SUFFIX?
  | DIGITS FLOAT_SUFFIX
  ;
INT
  : ( DIGITS | '0x' [0-9a-fA-F_]+ | '0b' [01_]+ ) INT_SUFFIX?
  ;
fragment DIGITS       : [0-9] [0-9_]* ;
fragment EXPONENT     : [eE] [+-]? [0-9_]+ ;
fragment FLOAT_SUFFIX : 'f16' | 'bf16' | 'f32' | 'f64' ;
fragment INT_SUFFIX   : 'i32' | 'i64' | 'u32' | 'u64' | 'usize' ;

IDENT : [a-zA-Z_] [a-zA-Z0-9_]* ;

// Only attributes take strings (`#[cfg(target = "b200")]`): one line, with
// `\"` and `\\` as the only escapes. An unterminated one is E0002.
STRING : '"' ( ~["\\\r\n] | '\\' ["\\] )* '"' ;

ARROW    : '->';
PATHSEP  : '::';
DOTDOT   : '..';
DOT      : '.';
COMMA    : ',';
SEMI     : ';';
HASH     : '#';
COLON    : ':';
LPAREN   : '(';
RPAREN   : ')';
LBRACK   : '[';
RBRACK   : ']';
LBRACE   : '{';
RBRACE   : '}';
PLUSEQ   : '+=';
MINUSEQ  : '-=';
STAREQ   : '*=';
SLASHEQ  : '/=';
PERCENTEQ: '%=';
EQEQ     : '==';
NE       : '!=';
LE       : '<=';
GE       : '>=';
ANDAND   : '&&';
OROR     : '||';
ASSIGN   : '=';
LT       : '<';
GT       : '>';
PLUS     : '+';
MINUS    : '-';
STAR     : '*';
SLASH    : '/';
PERCENT  : '%';
BANG     : '!';
AMP      : '&';

WS            : [ \t\r\n\f]+ -> skip;
LINE_COMMENT  : '//' ~[\n]* -> skip;
BLOCK_COMMENT : '/*' ( BLOCK_COMMENT | . )*? '*/' -> skip;

ERROR_CHAR : . -> channel(HIDDEN);
