// Package loader is the one workspace loader: every front end (the
// language server, check, render, pull, the MCP server) assembles the
// World its analysis reads with it.
//
// A World is what analysis may know of a workspace besides the file it
// analyses: the schema stores (built-ins of each Crossplane version in
// use, workspace and --schemas files, cached packages, CRD sources, a
// live cluster, catalogs), package metadata and the outcome of each
// dependency, and what each file of the workspace is (its kinds, its
// example composites, its Function objects and EnvironmentConfigs, the
// role a kustomization, a Helm chart or a chainsaw Test gives it).
// World.EnvWith is the one builder of analysis.Env.
//
// A World keeps one record per file (fileFacts, files.go): everything
// Load or an update found in that file. Forgetting a file, cloning a
// World for an update and telling whether an edit matters each touch
// that one value; a new file role is one more field of the record.
// Queries across files (a step's Function by name, the patches of
// kustomizations, the EnvironmentConfigs of a folder) read a small index
// of the records, built once per World (fileIndex).
//
// Invariants:
//   - A World is immutable: With* methods return a new one, which shares
//     every record, store and package outcome it does not replace; an edit
//     that leaves everything recorded of a file as it was returns the same
//     World.
//   - Reading a World never touches the disk, but for schema files: Load
//     indexes them as it reads them and keeps no text
//     (schemas.FileInput.Open), so a schema's first use reads its file
//     again through internal/workspace; and go-templating FileSystem
//     folders (templates.go), read on demand.
//   - Load reads the disk only through internal/workspace and the package
//     cache only through internal/packages (Cached: never the network).
//
// Files: load.go (Load, each file's record), world.go (the type and its
// queries), files.go (the record and its index), update.go (With*),
// env.go (EnvWith), roles.go (file roles), functions.go (Function
// objects, functions files), environment.go (EnvironmentConfigs),
// packages.go (cached packages, package problems), catalog.go,
// crdsources.go, cluster_source.go, cluster.go, templates.go, metas.go.
package loader
