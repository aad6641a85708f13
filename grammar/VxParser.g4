// Syntactic grammar of Vx (docs/language/syntax.md). src/parse/AstBuilder.cpp
// turns its parse trees into the AST; no ANTLR type leaves src/parse.
parser grammar VxParser;
options { tokenVocab = VxLexer; }

file : item* EOF ;

item
  : attribute* EXTERN? FN name=IDENT genericParams? LPAREN paramList? RPAREN
    (ARROW retType=type)? (ON topology=typePath)? (body=block | SEMI)   # fnItem
  | attribute* CONST name=IDENT COLON type ASSIGN expr SEMI              # constItem
  ;

// `#[allow(unproved)]`: lint levels of one function (docs/diagnostics.md);
// `#[cfg(target = "b200")]`: the item exists only in builds for that target
// (docs/language/syntax.md). The arguments are Rust's meta items.
attribute : HASH LBRACK level=IDENT LPAREN meta (COMMA meta)* COMMA? RPAREN RBRACK ;
meta      : IDENT (ASSIGN STRING | LPAREN (meta (COMMA meta)* COMMA?)? RPAREN)? ;

genericParams : LT genericParam (COMMA genericParam)* COMMA? GT ;
genericParam  : IDENT (COLON IDENT)? ;
paramList     : param (COMMA param)* COMMA? ;
param         : MUT? IDENT COLON type ;

type
  : AMP MUT? type                                   # refType
  | ANDAND MUT? type                                # refRefType
  | LPAREN (type (COMMA type)* COMMA?)? RPAREN      # tupleType
  | typePath                                        # pathType
  ;
typePath    : IDENT (PATHSEP IDENT)* genericArgs? ;
genericArgs : LT genericArg (COMMA genericArg)* COMMA? GT ;
genericArg
  : type                                            # typeArg
  | shape                                           # shapeArg
  | INT                                             # intArg
  ;
shape    : LBRACK (shapeDim (COMMA shapeDim)* COMMA?)? RBRACK ;
// A dimension: an integer, a `const` or generic name, or arithmetic over them
// (`2 * BM`), folded by the checker (src/check/SemaTypes.cpp).
shapeDim
  : lhs=shapeDim op=(STAR | SLASH | PERCENT) rhs=shapeDim  # dimMulDiv
  | lhs=shapeDim op=(PLUS | MINUS) rhs=shapeDim            # dimAddSub
  | LPAREN shapeDim RPAREN                                 # dimParen
  | INT                                                    # dimInt
  | IDENT                                                  # dimName
  ;

block : LBRACE stmt* tail=expr? RBRACE ;

stmt
  : LET pattern (COLON type)? ASSIGN expr SEMI                       # letStmt
  | expr op=(ASSIGN | PLUSEQ | MINUSEQ | STAREQ | SLASHEQ | PERCENTEQ) expr SEMI  # assignStmt
  // `for k in pipeline(lo..hi, depth = D) { let x = transfer(...); ... }`:
  // `pipeline` and `depth` are names, not keywords (the checker reads them).
  | FOR var=IDENT IN form=IDENT LPAREN expr DOTDOT expr COMMA option=IDENT ASSIGN expr COMMA? RPAREN block  # pipelineStmt
  | FOR IDENT IN expr DOTDOT expr block                              # forStmt
  | PARALLEL pattern IN LBRACK expr (COMMA expr)* COMMA? RBRACK block  # parallelStmt
  | WHILE expr block                                                 # whileStmt
  | ifChain                                                          # ifStmt
  | RETURN expr? SEMI                                                # returnStmt
  | BREAK SEMI                                                       # breakStmt
  | CONTINUE SEMI                                                    # continueStmt
  | block                                                            # blockStmt
  | expr SEMI                                                        # exprStmt
  | SEMI                                                             # emptyStmt
  ;
ifChain : IF expr block (ELSE (ifChain | block))? ;

pattern
  : MUT? IDENT                                      # bindPattern
  | LPAREN (pattern (COMMA pattern)* COMMA?)? RPAREN # tuplePattern
  ;

expr
  : expr DOT IDENT LPAREN args? RPAREN              # methodCallExpr
  | expr DOT (IDENT | INT)                          # fieldExpr
  | expr LPAREN args? RPAREN                        # callExpr
  | expr LBRACK expr RBRACK                         # indexExpr
  | op=(MINUS | BANG | STAR) expr                   # unaryExpr
  | AMP MUT? expr                                   # borrowExpr
  | ANDAND MUT? expr                                # borrowBorrowExpr
  | expr AS type                                    # castExpr
  | expr op=(STAR | SLASH | PERCENT) expr           # binaryExpr
  | expr op=(PLUS | MINUS) expr                     # binaryExpr
  | expr op=(EQEQ | NE | LT | GT | LE | GE) expr    # binaryExpr
  | expr op=ANDAND expr                             # binaryExpr
  | expr op=OROR expr                               # binaryExpr
  | INT                                             # intExpr
  | FLOAT                                           # floatExpr
  | (TRUE | FALSE)                                  # boolExpr
  | IDENT (PATHSEP IDENT)* (PATHSEP genericArgs)?   # pathExpr
  | LPAREN RPAREN                                   # unitExpr
  | LPAREN expr RPAREN                              # parenExpr
  | LPAREN expr COMMA (expr (COMMA expr)* COMMA?)? RPAREN  # tupleExpr
  ;
args : expr (COMMA expr)* COMMA? ;
