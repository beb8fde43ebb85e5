-- Headless Neovim end-to-end check of crd-lsp, run by editors/neovim's Go
-- test: nvim --headless -u NONE -c "luafile e2e.lua"
-- Environment: CRD_LSP_BIN (the built binary), CRD_LSP_FILE (the YAML to
-- open), CRD_LSP_OUT (where to write the JSON result), CRD_LSP_HOVER
-- ("line,col", 0-based, for a hover request), CRD_LSP_LENS (set: request
-- code lenses and run the last one's command through
-- workspace/executeCommand, as vim.lsp.codelens.run does).
-- Uses vim.lsp.start_client + buf_attach_client, which Neovim 0.7 (Debian
-- bookworm) has and newer versions keep.
local out = {}
local function finish(code)
  local f = io.open(os.getenv("CRD_LSP_OUT"), "w")
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd(code == 0 and "qa!" or "cq!")
end

local ok, err = pcall(function()
  local file = os.getenv("CRD_LSP_FILE")
  vim.cmd("edit " .. file)
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = "yaml"
  local client_id = vim.lsp.start_client({
    name = "crd-lsp",
    cmd = { os.getenv("CRD_LSP_BIN") },
    root_dir = vim.fn.fnamemodify(file, ":h"),
    settings = { crdLsp = { validation = { unknownKind = "warning" } } },
    init_options = { validation = { unknownKind = "warning" } },
  })
  out.client = client_id ~= nil
  vim.lsp.buf_attach_client(buf, client_id)

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
      -- Until the server has loaded the workspace's XRD it answers with an
      -- error ("no XRD ..."): ask again for a while, as a user would.
      vim.wait(20000, function()
        local cmd = vim.lsp.buf_request_sync(buf, "workspace/executeCommand", { command = last.command.command, arguments = last.command.arguments }, 10000)
        for _, r in pairs(cmd or {}) do
          out.rendered = r.result
          out.render_error = r.err and r.err.message or nil
        end
        return out.rendered ~= nil
      end, 200)
    end
  end
  vim.lsp.stop_client(client_id)
end)
if not ok then
  out.error = tostring(err)
  finish(1)
else
  finish(0)
end
