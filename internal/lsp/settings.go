// This file defines the crdLsp settings object, its defaults, and what of it
// the loader and every analysis.Env get.

package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/crd-lsp/crd-lsp/internal/composition"
	"github.com/crd-lsp/crd-lsp/internal/loader"
	"github.com/crd-lsp/crd-lsp/internal/severity"
	"github.com/crd-lsp/crd-lsp/internal/workspace"
)

// Settings is the `crdLsp` configuration object. Clients send it as
// initializationOptions and answer workspace/configuration with it; the two
// carry the same shape. Unknown keys are ignored so that newer editor
// extensions keep working with older servers.
type Settings struct {
	// CrossplaneVersion selects the built-in Crossplane schemas ("v1" or
	// "v2") when no crossplane.yaml pins spec.crossplane.version.
	CrossplaneVersion string `json:"crossplaneVersion,omitempty"`
	// KubernetesVersion selects the built-in Kubernetes schemas by minor
	// ("1.34"); empty: the cluster's (crdLsp.cluster), else the newest.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	Schemas           struct {
		// Include and Exclude are globs (relative to a workspace folder)
		// that limit where CRDs and XRDs are searched; package metadata
		// (crossplane.yaml), example composites and Functions are found
		// in every file.
		Include []string `json:"include,omitempty"`
		Exclude []string `json:"exclude,omitempty"`
		// Paths are more folders or files of CRDs, XRDs and MRDs, outside
		// the workspace or in it (check's --schemas): absolute, ~/…, or
		// relative to a workspace folder.
		Paths stringOrList `json:"paths,omitempty"`
		// MaxFileSize skips larger files while scanning (bytes).
		MaxFileSize int64 `json:"maxFileSize,omitempty"`
	} `json:"schemas"`
	Validation struct {
		// UnknownKind is the severity of documents whose kind no schema
		// defines: "error", "warning" (default), "info" or "ignore".
		UnknownKind string `json:"unknownKind,omitempty"`
		// CompositionMode is the default schema-aware validation mode for
		// Compositions: "strict", "loose" or "warn" (default).
		CompositionMode string `json:"compositionMode,omitempty"`
		// ClientKinds adds to the built-in list of client-side
		// configuration kinds (Kustomization and the like), which never
		// reach an API server and are not validated: API groups, or
		// Kind.group ("Kind" for the core group).
		ClientKinds []string `json:"clientKinds,omitempty"`
	} `json:"validation"`
	Registries struct {
		Default  string   `json:"default,omitempty"`
		Insecure []string `json:"insecure,omitempty"`
		// Timeout is how many seconds a registry may stay silent (before
		// it answers, or in the middle of a layer); PullTimeout bounds
		// one package's whole pull. Zero: 30 and 300.
		Timeout     float64 `json:"timeout,omitempty"`
		PullTimeout float64 `json:"pullTimeout,omitempty"`
	} `json:"registries"`
	// UptestPlaceholders validates uptest's template variables
	// (${Rand.RFC1123Subdomain} in upjet providers' examples) as the
	// values uptest substitutes.
	UptestPlaceholders bool   `json:"uptestPlaceholders,omitempty"`
	CacheDir           string `json:"cacheDir,omitempty"`
	// CRDSources are CRDs named by location: http(s) URLs of CRD YAML (a
	// release's *.crds.yaml) or Helm charts in OCI registries
	// (oci://HOST/REPO/CHART:VERSION), read and cached by digest
	// (crdsources.go).
	CRDSources []string `json:"crdSources,omitempty"`
	// Cluster is a live cluster whose CRDs serve as schemas (off by
	// default; cluster_source.go).
	Cluster ClusterSettings `json:"cluster,omitempty"`
	// SchemaCatalogs are schema catalog location templates (kubeconform's
	// -schema-location form: http(s) URLs, file URLs or absolute paths
	// with {{.Group}}, {{.ResourceKind}}, {{.ResourceAPIVersion}}) asked
	// for kinds nothing else defines (catalogs.go).
	SchemaCatalogs []string `json:"schemaCatalogs,omitempty"`
	// SchemaCatalogRefresh is how old a cached catalog answer may be
	// before the catalog is asked again (a Go duration; default 24h,
	// negative never).
	SchemaCatalogRefresh string `json:"schemaCatalogRefresh,omitempty"`
	LogLevel             string `json:"logLevel,omitempty"`
	// MaxFileSize (bytes) bounds the files crd-lsp analyses: a larger open
	// document gets one diagnostic saying it was not analysed, and files
	// read on request (the document and XR crdLsp.render is given, other
	// files' text for definitions) are refused.
	MaxFileSize int64 `json:"maxFileSize,omitempty"`
	// MaxDocuments bounds the YAML documents of an open file that crd-lsp
	// analyses: a file with more gets one diagnostic saying it was not.
	MaxDocuments int `json:"maxDocuments,omitempty"`

	// The composition functions crd-lsp runs to render Composition
	// pipelines (functions.go); nothing runs or is contacted that these
	// (or the workspace's Development Functions) do not name. They mirror
	// check's and render's flags.
	//
	// Functions maps a function name (a step's functionRef.name) to a
	// local executable, which crd-lsp starts with the function SDK's flags
	// on loopback, keeps warm and stops (--function-exe).
	Functions functionExes `json:"functions,omitempty"`
	// FunctionsFiles are files (or folders) of Function objects, as
	// crossplane render --functions reads them: those annotated
	// render.crossplane.io/runtime: Development are reached at their
	// runtime-development-target (--functions).
	FunctionsFiles stringOrList `json:"functionsFiles,omitempty"`
	// WorkspaceFunctions uses the workspace's own Development Functions
	// too (default false: a repository's functions.yaml names a function
	// its author runs by hand for crossplane render; calling it unasked
	// would put "not reachable" errors on every step, and check calls
	// nothing without --functions); a setting's function of the same
	// name wins.
	WorkspaceFunctions *bool `json:"workspaceFunctions,omitempty"`
	// FunctionTimeout bounds one function call (seconds, default 10);
	// FunctionStartTimeout starting a function (seconds, default 30,
	// 300 in Docker).
	FunctionTimeout      float64 `json:"functionTimeout,omitempty"`
	FunctionStartTimeout float64 `json:"functionStartTimeout,omitempty"`
	// RealPatchAndTransform sends function-patch-and-transform steps to
	// the real function when it is configured, instead of crd-lsp's own
	// renderer (--real-patch-and-transform).
	RealPatchAndTransform bool `json:"realPatchAndTransform,omitempty"`
	// FunctionsDocker runs Functions without a Development annotation in
	// Docker, from their package image (--functions-docker).
	FunctionsDocker bool `json:"functionsDocker,omitempty"`
	// FunctionsFromPackages runs Functions (of functionsFiles, of the
	// workspace, and crossplane.yaml's function dependencies) from the
	// runtime image their package embeds: pulled into the package cache
	// (registries.*, cacheDir) and unpacked, the function's own program
	// runs on this machine, Linux only (--functions-from-packages).
	FunctionsFromPackages bool `json:"functionsFromPackages,omitempty"`
	// AllowRemoteFunctions allows Development targets outside loopback
	// (--allow-remote-functions).
	AllowRemoteFunctions bool `json:"allowRemoteFunctions,omitempty"`
	// Kustomize: building the workspace's kustomizations and validating
	// what they build (kustomize.go; check's --kustomize and
	// --kustomization).
	Kustomize struct {
		// Build (default true) builds each kustomization that no other
		// uses as a base; false checks files only as written.
		Build *bool `json:"build,omitempty"`
		// Paths are more kustomizations to build (files or their
		// folders, in the workspace: absolute, ~/…, or relative to a
		// workspace folder).
		Paths stringOrList `json:"paths,omitempty"`
		// AllowRemote fetches remote bases with the user's git
		// (--kustomize-remote); off unless asked.
		AllowRemote bool `json:"allowRemote,omitempty"`
		// EnableHelm inflates helmCharts with HelmCommand (default
		// "helm": --kustomize-helm, --helm-command); off unless asked.
		EnableHelm  bool   `json:"enableHelm,omitempty"`
		HelmCommand string `json:"helmCommand,omitempty"`
	} `json:"kustomize"`
}

// functionExes is crdLsp.functions: function name → executable. A value
// that is not a string is refused naming its key, and
// crdLsp.functions.fromPackages (how the switch may be guessed: function
// names are lowercase DNS labels, so no function is named so) points to
// crdLsp.functionsFromPackages.
type functionExes map[string]string

func (m *functionExes) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("crdLsp.functions: want an object of function names and executables: %w", err)
	}
	out := functionExes{}
	for name, v := range raw {
		var p string
		if err := json.Unmarshal(v, &p); err != nil {
			if name == "fromPackages" {
				return errors.New("crdLsp.functions.fromPackages: running Functions from their packages is crdLsp.functionsFromPackages (crdLsp.functions maps function names to executables)")
			}
			return fmt.Errorf("crdLsp.functions.%s: want the path of an executable (a string)", name)
		}
		out[name] = p
	}
	*m = out
	return nil
}

// stringOrList is a list of strings that a single string also gives.
type stringOrList []string

func (l *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if one != "" {
			*l = stringOrList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*l = many
	return nil
}

// analysis is what of the settings every analysis.Env carries.
func (s Settings) analysis() loader.AnalysisSettings {
	a := loader.AnalysisSettings{ClientKinds: s.Validation.ClientKinds, UptestPlaceholders: s.UptestPlaceholders}
	// A value other than warn, loose or strict is warn, the default.
	a.CompositionMode, _ = composition.ParseMode(s.Validation.CompositionMode)
	if sev, ok := severity.Parse(s.Validation.UnknownKind); ok {
		a.UnknownKind = sev
	}
	return a
}

// loaderConfig is what the workspace is loaded with: its folders, the
// scan's limits and the targeted Crossplane version (reloadSchemas adds
// the package client and the server's package index, through which Load
// serves cached packages and CRD sources).
func (s Settings) loaderConfig(roots, schemaDirs []string) loader.Config {
	return loader.Config{
		Roots:             roots,
		SchemaDirs:        schemaDirs,
		Options:           workspace.Options{MaxFileSize: s.Schemas.MaxFileSize},
		SchemaScope:       workspace.Options{Include: s.Schemas.Include, Exclude: s.Schemas.Exclude},
		CrossplaneVersion: s.CrossplaneVersion,
		KubernetesVersion: s.KubernetesVersion,
		Analysis:          s.analysis(),
		Catalog:           s.catalog(),
		ClusterSource:     s.clusterSource(),
		// Served from the package cache when reloadSchemas adds the
		// package client.
		CRDSources: s.CRDSources,
	}
}

// schemaDirs resolves crdLsp.schemas.paths against the workspace folders;
// missing are the entries that name nothing (said to the user, and left
// out so that the rest of the workspace still loads).
func (s Settings) schemaDirs(roots []string) (dirs, missing []string) {
	for _, p := range s.Schemas.Paths {
		if p == "" {
			continue
		}
		r := resolvePath(p, roots)
		if _, err := os.Stat(r); err != nil {
			missing = append(missing, r)
			continue
		}
		dirs = append(dirs, r)
	}
	return dirs, missing
}

// defaultMaxDocuments is crdLsp.maxDocuments's default.
const defaultMaxDocuments = 10000

// defaultMaxFileSize is crdLsp.maxFileSize's default: analysing a file
// takes about 0.7 s per MB of YAML, on every change.
const defaultMaxFileSize = 5 << 20

func defaultSettings() Settings {
	var s Settings
	s.Validation.UnknownKind = "warning"
	s.Validation.CompositionMode = "warn"
	s.Schemas.MaxFileSize = workspace.DefaultMaxFileSize
	s.MaxFileSize = defaultMaxFileSize
	s.MaxDocuments = defaultMaxDocuments
	return s
}

// parseSettings overlays raw (the crdLsp object, or an object that holds it
// under "crdLsp") on the defaults. Empty or null input gives the defaults.
func parseSettings(raw []byte) (Settings, error) {
	s := defaultSettings()
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var wrapper map[string]json.RawMessage
	if err := json.Unmarshal(raw, &wrapper); err != nil {
		return s, fmt.Errorf("crdLsp settings must be a JSON object: %w", err)
	}
	if inner, ok := wrapper["crdLsp"]; ok {
		raw = inner
		if string(raw) == "null" {
			return s, nil
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return defaultSettings(), fmt.Errorf("invalid crdLsp settings: %w", err)
	}
	if err := checkCatalogSettings(s); err != nil {
		return defaultSettings(), err
	}
	if err := checkClusterSettings(s); err != nil {
		return defaultSettings(), err
	}
	if s.Schemas.MaxFileSize <= 0 {
		s.Schemas.MaxFileSize = workspace.DefaultMaxFileSize
	}
	if s.MaxFileSize <= 0 {
		s.MaxFileSize = defaultMaxFileSize
	}
	if s.MaxDocuments <= 0 {
		s.MaxDocuments = defaultMaxDocuments
	}
	return s, nil
}
