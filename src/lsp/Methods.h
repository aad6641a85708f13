// One free function per LSP method, one file each under methods/. Requests
// return their result (or throw BadParams); notifications return nothing.
#pragma once

#include "lsp/State.h"

namespace vx::lsp {

json initialize(State& s, const json& params);         // methods/Initialize.cpp
json shutdown(State& s, const json& params);           // methods/Shutdown.cpp
json codeAction(State& s, const json& params);         // methods/CodeAction.cpp
json documentSymbol(State& s, const json& params);     // methods/DocumentSymbol.cpp
json definition(State& s, const json& params);         // methods/Definition.cpp
json hover(State& s, const json& params);              // methods/Hover.cpp
json completion(State& s, const json& params);         // methods/Completion.cpp
json signatureHelp(State& s, const json& params);      // methods/SignatureHelp.cpp
json workspaceSymbol(State& s, const json& params);    // methods/WorkspaceSymbol.cpp
json references(State& s, const json& params);         // methods/References.cpp
json semanticTokens(State& s, const json& params);     // methods/SemanticTokens.cpp
json semanticTokensLegend();                           // methods/SemanticTokens.cpp
json inlayHint(State& s, const json& params);          // methods/InlayHint.cpp
void didOpen(State& s, const json& params);            // methods/DidOpen.cpp
void didChange(State& s, const json& params);          // methods/DidChange.cpp
void didClose(State& s, const json& params);           // methods/DidClose.cpp

}  // namespace vx::lsp
