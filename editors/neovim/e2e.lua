-- Headless Neovim end-to-end check of crd-lsp, run by editors/neovim's Go
-- test: nvim --headless -u NONE -c "luafile e2e.lua"
-- The client is set up by docs/editors.md's own blocks, run as written:
-- CRD_LSP_SETUP (the Neovim 0.7 setup: an autocommand that starts crd-lsp,
-- found on PATH, with its settings) and CRD_LSP_RENDER (the :CrdRender
-- command). Environment: CRD_LSP_FILE (the YAML to open), CRD_LSP_OUT
-- (where to write the JSON result), CRD_LSP_HOVER ("line,col", 0-based,
-- for a hover request), CRD_LSP_LENS (set: list the code lenses, then run
-- :CrdRender on the last one's line and read the scratch buffer it opens).
local out = {}
local function finish(code)
  local f = io.open(os.getenv("CRD_LSP_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd(code == 0 and "qa!" or "cq!")
end

local ok, err = pcall(function()
  dofile(os.getenv("CRD_LSP_SETUP"))
  dofile(os.getenv("CRD_LSP_RENDER"))
  local file = os.getenv("CRD_LSP_FILE")
  vim.cmd("edit " .. file)
  local buf = vim.api.nvim_get_current_buf()
  -- -u NONE runs no filetype detection: set it, which runs the setup's autocommand.
  vim.bo[buf].filetype = "yaml"
  out.client = vim.wait(20000, function() return next(vim.lsp.buf_get_clients(buf)) ~= nil end, 50)

  -- Wait for diagnostics to arrive and settle.
  local last, stable = -1, 0
  vim.wait(20000, function()
    local n = #vim.diagnostic.get(buf)
    if n > 0 and n == last then
      stable = stable + 1
    else
      stable = 0
    end
    last = n
    return stable >= 10
  end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { line = d.lnum, col = d.col, message = d.message, source = d.source, severity = d.severity })
  end

  local hl, hc = string.match(os.getenv("CRD_LSP_HOVER") or "", "(%d+),(%d+)")
  if hl then
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = tonumber(hl), character = tonumber(hc) } }
    local res = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 10000)
    out.hover = ""
    for _, r in pairs(res or {}) do
      if r.result and r.result.contents then
        out.hover = r.result.contents.value or vim.inspect(r.result.contents)
      end
    end
  end
  if os.getenv("CRD_LSP_LENS") then
    local res = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000)
    out.lenses = {}
    local last
    for _, r in pairs(res or {}) do
      for _, l in ipairs(r.result or {}) do
        table.insert(out.lenses, l.command.title)
        last = l
      end
    end
    if last then
      -- :CrdRender on the lens's line. Until the server has loaded the
      -- workspace's XRD it answers with an error ("no XRD ..."): run it
      -- again for a while, as a user would.
      local win = vim.api.nvim_get_current_win()
      vim.wait(20000, function()
        vim.api.nvim_set_current_win(win)
        vim.api.nvim_win_set_cursor(win, { last.range.start.line + 1, 0 })
        vim.cmd("CrdRender")
        return vim.api.nvim_get_current_buf() ~= buf
      end, 200)
      local scratch = vim.api.nvim_get_current_buf()
      if scratch ~= buf then
        out.rendered = table.concat(vim.api.nvim_buf_get_lines(scratch, 0, -1, false), "\n")
        -- Give a wrongly attached client time to publish, then look.
        vim.lsp.buf_request_sync(buf, "textDocument/hover", { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 0, character = 0 } }, 10000)
        out.scratch = {
          buftype = vim.bo[scratch].buftype,
          filetype = vim.bo[scratch].filetype,
          modified = vim.bo[scratch].modified,
          modifiable = vim.bo[scratch].modifiable,
          clients = vim.tbl_count(vim.lsp.buf_get_clients(scratch)),
          diagnostics = #vim.diagnostic.get(scratch),
        }
      end
    end
  end
  for _, c in pairs(vim.lsp.get_active_clients()) do
    c.stop()
  end
end)
if not ok then
  out.error = tostring(err)
  finish(1)
else
  finish(0)
end
