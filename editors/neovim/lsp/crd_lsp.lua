-- crd-lsp for Neovim 0.11+ (vim.lsp.config): copy this file to
-- ~/.config/nvim/lsp/crd_lsp.lua (or put this folder's parent on
-- 'runtimepath') and call vim.lsp.enable('crd_lsp').
-- Settings go under crdLsp (README's "Settings" table).
return {
  cmd = { 'crd-lsp' },
  filetypes = { 'yaml' },
  root_markers = { 'crossplane.yaml', '.git' },
  settings = { crdLsp = {} },
}
