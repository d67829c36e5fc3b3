-- Neovim 0.11+: `vim.lsp.enable("fslens")` reads this file from the runtimepath and starts
-- fslens for F# buffers, with no require("fslens").setup(). Override fields with
-- `vim.lsp.config("fslens", { cmd = { "fslens", "--fsac", "dotnet /opt/fsac/fsautocomplete.dll" } })`.
-- The :Fslens* commands are defined when fslens attaches. See editors/README.md.
return require("fslens").lsp_config()
