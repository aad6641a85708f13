-- Run by neovim_session.sh inside `nvim --headless` on a file with a token
-- never waited for, with editors/nvim on the runtime path: its plugin has
-- started `vxc lsp` for the buffer. Waits for the diagnostics, fixes the
-- file with a buffer edit (sent as an incremental change), waits for them
-- to clear, asks for a hover and a definition on the `t` of `wait(t)`, lets
-- the plugin draw its inlay hints, stops the server. Writes what it saw to
-- $OUT.
local out = assert(io.open(os.getenv("OUT"), "w"))
local function log(s)
  out:write(s .. "\n")
  out:flush()
end
-- Any Lua error is written out and ends Neovim, rather than leaving it waiting.
local ok, err = pcall(function()
  log("filetype " .. vim.bo.filetype)
  if not vim.wait(20000, function() return #vim.lsp.buf_get_clients(0) > 0 end, 20) then log("no client") end
  local client = vim.lsp.buf_get_clients(0)[next(vim.lsp.buf_get_clients(0))]
  local exited = false
  local on_exit = client.config.on_exit
  client.config.on_exit = function(code, ...)
    log("server exit " .. code)
    exited = true
    if on_exit then on_exit(code, ...) end
  end
  if not vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 20) then log("no diagnostics") end
  local seen = vim.diagnostic.get(0)
  table.sort(seen, function(a, b) return a.lnum < b.lnum end)
  for _, d in ipairs(seen) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or "?"
    log(string.format("%s %d:%d %s", code, d.lnum, d.col, d.message:match("[^\n]*")))
  end
  vim.api.nvim_buf_set_lines(0, 2, 2, false, { "  wait(t);" })
  vim.wait(20000, function() return #vim.diagnostic.get(0) == 0 end, 20)
  log("after the edit: " .. #vim.diagnostic.get(0) .. " diagnostics")
  local at = { textDocument = vim.lsp.util.make_text_document_params(0), position = { line = 2, character = 7 } }
  local hover = vim.lsp.buf_request_sync(0, "textDocument/hover", at, 10000) or {}
  for _, r in pairs(hover) do
    local value = r.result and r.result.contents and r.result.contents.value or ""
    log("hover: " .. (value:match("(before this statement:[^\n]*)") or value))
  end
  local def = vim.lsp.buf_request_sync(0, "textDocument/definition", at, 10000) or {}
  for _, r in pairs(def) do
    local loc = r.result and (r.result.range and r.result or r.result[1])
    log(loc and string.format("definition: %d:%d", loc.range.start.line, loc.range.start.character) or "definition: none")
  end
  _G.vxc.refresh_hints(0)
  local marks = {}
  vim.wait(10000, function()
    marks = vim.api.nvim_buf_get_extmarks(0, _G.vxc.hints_namespace, 0, -1, { details = true })
    return #marks >= 2
  end, 20)
  local hints = {}
  for _, m in ipairs(marks) do
    table.insert(hints, m[2] .. " " .. m[4].virt_text[1][1])
  end
  log("hints: " .. table.concat(hints, " | "))
  vim.lsp.stop_client(client.id)
  vim.wait(10000, function() return exited end, 20)
end)
if not ok then log("error: " .. tostring(err)) end
out:close()
vim.cmd("qa!")
