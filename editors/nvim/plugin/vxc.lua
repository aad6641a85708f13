-- Vx in Neovim (0.7 or later): `vxc lsp` for every buffer of filetype `vx`
-- (ftdetect/vx.vim), with hover (K), go to definition (gd), references
-- (gr) and completion (omnifunc), and the token states as inlay hints:
-- Neovim's own where it has them (0.10), else end-of-line virtual text
-- refreshed after each change (`:VxInlayHints` toggles them). See
-- docs/editors.md. Settings, before the plugin loads:
--   vim.g.vxc_cmd = { "vxc", "lsp" }   -- how to start the server
--   vim.g.vxc_target = "tpu"           -- cpu (default), tpu, b200, h100
--   vim.g.vxc_keymaps = false          -- leave K, gd, gr alone
--   vim.g.vxc_inlay_hints = false      -- start with inlay hints off
if vim.g.loaded_vxc then
  return
end
vim.g.loaded_vxc = true

local M = {}
_G.vxc = M
local clients = {} -- root directory -> client id
local hints_ns = vim.api.nvim_create_namespace("vxc_inlay_hints")
M.hints_enabled = vim.g.vxc_inlay_hints ~= false

local function root_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  local found = vim.fn.finddir(".git", dir .. ";")
  return found ~= "" and vim.fn.fnamemodify(found, ":p:h:h") or dir
end

local function client_for(root)
  local id = clients[root]
  if id and vim.lsp.get_client_by_id(id) and not vim.lsp.client_is_stopped(id) then
    return id
  end
  local init = {}
  if vim.g.vxc_target then
    init.target = vim.g.vxc_target
  end
  id = vim.lsp.start_client({
    name = "vxc",
    cmd = vim.g.vxc_cmd or { "vxc", "lsp" },
    root_dir = root,
    init_options = init,
  })
  clients[root] = id
  return id
end

-- Inlay hints as virtual text at the ends of lines (Neovim before 0.10).
function M.refresh_hints(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  if not M.hints_enabled then
    vim.api.nvim_buf_clear_namespace(bufnr, hints_ns, 0, -1)
    return
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = { start = { line = 0, character = 0 }, ["end"] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } },
  }
  vim.lsp.buf_request(bufnr, "textDocument/inlayHint", params, function(err, result)
    if err or type(result) ~= "table" or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    vim.api.nvim_buf_clear_namespace(bufnr, hints_ns, 0, -1)
    local lines = {}
    for _, h in ipairs(result) do
      local l = h.position.line
      lines[l] = (lines[l] and lines[l] .. "  " or "") .. h.label
    end
    for l, text in pairs(lines) do
      if l < vim.api.nvim_buf_line_count(bufnr) then
        vim.api.nvim_buf_set_extmark(bufnr, hints_ns, l, 0, { virt_text = { { text, "Comment" } }, virt_text_pos = "eol" })
      end
    end
  end)
end

M.hints_namespace = hints_ns

local function native_hints()
  return vim.lsp.inlay_hint ~= nil and type(vim.lsp.inlay_hint.enable) == "function"
end

function M.toggle_hints()
  M.hints_enabled = not M.hints_enabled
  local bufnr = vim.api.nvim_get_current_buf()
  if native_hints() then
    pcall(vim.lsp.inlay_hint.enable, M.hints_enabled, { bufnr = bufnr })
  else
    M.refresh_hints(bufnr)
  end
end

vim.api.nvim_create_user_command("VxInlayHints", function()
  M.toggle_hints()
end, { desc = "vxc: show or hide the token states" })

local function attach(bufnr)
  local id = client_for(root_of(bufnr))
  if not id then
    return
  end
  vim.lsp.buf_attach_client(bufnr, id)
  vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
  if vim.g.vxc_keymaps ~= false then
    local opts = { buffer = bufnr, silent = true }
    vim.keymap.set("n", "K", vim.lsp.buf.hover, opts)
    vim.keymap.set("n", "gd", vim.lsp.buf.definition, opts)
    vim.keymap.set("n", "gr", vim.lsp.buf.references, opts)
  end
  if native_hints() then
    pcall(vim.lsp.inlay_hint.enable, M.hints_enabled, { bufnr = bufnr })
    return
  end
  -- Before 0.10: after each change, once the server had time to check it.
  local timer = nil
  vim.api.nvim_create_autocmd({ "TextChanged", "InsertLeave", "BufEnter" }, {
    buffer = bufnr,
    callback = function()
      if timer then
        timer:stop()
      end
      timer = vim.defer_fn(function()
        timer = nil
        M.refresh_hints(bufnr)
      end, 300)
    end,
  })
  vim.defer_fn(function() M.refresh_hints(bufnr) end, 300)
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "vx",
  callback = function(args)
    attach(args.buf)
  end,
})

return M
