-- Run by neovim_shows_diagnostics.sh inside `nvim --headless` on a file with
-- a token never waited for. Starts `vxc lsp` as Neovim's LSP client would,
-- waits for the diagnostics, fixes the file with a buffer edit (sent as an
-- incremental change), waits for them to clear, stops the server. Writes
-- what it saw to $OUT.
local out = assert(io.open(os.getenv("OUT"), "w"))
local function log(s)
  out:write(s .. "\n")
  out:flush()
end
-- Any Lua error is written out and ends Neovim, rather than leaving it waiting.
local ok, err = pcall(function()
  local exited = false
  local id = vim.lsp.start_client({
    name = "vxc",
    cmd = { os.getenv("VXC"), "lsp" },
    root_dir = vim.fn.getcwd(),
    init_options = { target = "tpu" },
    on_exit = function(code)
      log("server exit " .. code)
      exited = true
    end,
  })
  vim.lsp.buf_attach_client(0, id)
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
  vim.lsp.stop_client(id)
  vim.wait(10000, function() return exited end, 20)
end)
if not ok then log("error: " .. tostring(err)) end
out:close()
vim.cmd("qa!")
