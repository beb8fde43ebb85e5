package generate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// KubernetesModule is the Go module whose OpenAPI v3 documents
// (KubernetesSpecDir) the Kubernetes bundles are generated from: the
// module zip the Go module proxy serves carries them for every release.
const KubernetesModule = "k8s.io/kubernetes"

// KubernetesSpecDir is the folder of the OpenAPI v3 documents in
// KubernetesModule.
const KubernetesSpecDir = "api/openapi-spec/v3"

// Release is one built-in Kubernetes minor and the release of
// KubernetesModule its schemas are generated from.
type Release struct {
	Minor  string // "1.34"
	Module string // "v1.34.4"
}

// KubernetesReleases are the built-in Kubernetes minors, oldest first:
// the one place their exact versions are named. The last is the newest:
// its bundle is embedded whole and read at every start; the others are
// embedded as a compressed difference from it (see Diff).
var KubernetesReleases = []Release{
	{Minor: "1.34", Module: "v1.34.4"},
	{Minor: "1.35", Module: "v1.35.4"},
	{Minor: "1.36", Module: "v1.36.3"},
	{Minor: "1.37", Module: "v1.37.2"},
}

// Newest is the newest built-in release.
func Newest() Release { return KubernetesReleases[len(KubernetesReleases)-1] }

// Bundle is the name of the release's whole bundle: the File of the
// newest; an older one's is rebuilt from its difference, never written.
func (r Release) Bundle() string { return "kubernetes-v" + r.Minor + ".yaml" }

// File is the bundle file of a release under data/.
func (r Release) File() string {
	if r == Newest() {
		return "kubernetes-v" + r.Minor + ".yaml"
	}
	return "kubernetes-v" + r.Minor + ".diff.yaml.gz"
}

// gaDocument matches the documents of GA group-versions (v1, v2 …; no
// alpha or beta): api__v1_openapi.json, apis__apps__v1_openapi.json.
var gaDocument = regexp.MustCompile(`^(api|apis__[a-z0-9.-]+)__v[0-9]+_openapi\.json$`)

// ModuleDirs returns the module folder of each release's KubernetesModule
// version, by module version, downloading what the module cache lacks
// through `go mod download` (the Go module proxy).
func ModuleDirs(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range KubernetesReleases {
		cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", KubernetesModule+"@"+r.Module)
		cmd.Dir = os.TempDir() // outside any module: never touches go.mod
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var info struct{ Dir, Error string }
		_ = json.Unmarshal(stdout.Bytes(), &info)
		switch {
		case info.Error != "":
			return nil, fmt.Errorf("go mod download %s@%s: %s", KubernetesModule, r.Module, info.Error)
		case err != nil:
			return nil, fmt.Errorf("go mod download %s@%s: %v: %s", KubernetesModule, r.Module, err, strings.TrimSpace(stderr.String()))
		case info.Dir == "":
			return nil, fmt.Errorf("go mod download %s@%s: no module folder", KubernetesModule, r.Module)
		}
		out[r.Module] = info.Dir
	}
	return out, nil
}

// BuildKubernetes returns the Kubernetes bundle files, by file name: the
// newest whole, the others as differences from it.
func BuildKubernetes(modDirs map[string]string) (map[string][]byte, error) {
	full := map[string][]byte{}
	for _, r := range KubernetesReleases {
		dir, ok := modDirs[r.Module]
		if !ok {
			return nil, fmt.Errorf("no module folder of %s@%s", KubernetesModule, r.Module)
		}
		b, err := KubernetesBundle(dir, r.Minor)
		if err != nil {
			return nil, fmt.Errorf("%s@%s: %w", KubernetesModule, r.Module, err)
		}
		full[r.Minor] = b
	}
	newest := Newest()
	out := map[string][]byte{newest.File(): full[newest.Minor]}
	for _, r := range KubernetesReleases {
		ix, err := Index(full[r.Minor])
		if err != nil {
			return nil, fmt.Errorf("Kubernetes %s: %w", r.Minor, err)
		}
		out[r.Bundle()+IndexSuffix] = ix
	}
	for _, r := range KubernetesReleases[:len(KubernetesReleases)-1] {
		d, err := Diff(full[r.Minor], full[newest.Minor])
		if err != nil {
			return nil, fmt.Errorf("Kubernetes %s: %w", r.Minor, err)
		}
		out[r.File()] = Compress(d)
	}
	return out, nil
}

// KubernetesBundle returns the whole bundle of one minor: a CRD per
// top-level kind of every GA group-version document under the module
// folder's KubernetesSpecDir. Each document's origin is
// kubernetes/v<minor>/<document>#<Kind>.
func KubernetesBundle(modDir, minor string) ([]byte, error) {
	dir := filepath.Join(modDir, filepath.FromSlash(KubernetesSpecDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if gaDocument.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no GA OpenAPI v3 documents under %s", dir)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		origin := "kubernetes/v" + minor + "/" + name
		crds, err := KubernetesCRDs(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, c := range crds {
			y, err := sigsyaml.Marshal(c.CRD)
			if err != nil {
				return nil, fmt.Errorf("%s#%s: %w", name, c.Kind, err)
			}
			writeDoc(&buf, origin+"#"+c.Kind, y)
		}
	}
	return buf.Bytes(), nil
}

// Same is the body of a difference document whose kind's CRD is the
// newest bundle's, byte for byte.
const Same = "#same\n"

// Diff is an older minor's bundle as a difference from the newest: every
// document of the older bundle, in its order, under its own origin; a
// document identical to the newest's for the same key (the origin without
// its kubernetes/v<minor>/ prefix) has the body Same, one close to it the
// line edits from it (Edited), any other its own text. Kinds the older
// minor does not serve are simply absent.
func Diff(older, newest []byte) ([]byte, error) {
	newDocs, err := Split(newest)
	if err != nil {
		return nil, err
	}
	byKey := map[string][]byte{}
	for _, d := range newDocs {
		byKey[Key(d.Origin)] = d.Body
	}
	oldDocs, err := Split(older)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, d := range oldDocs {
		nb, ok := byKey[Key(d.Origin)]
		if ok && bytes.Equal(nb, d.Body) {
			writeDoc(&buf, d.Origin, []byte(Same))
			continue
		}
		if ok {
			if script, ok := editScript(nb, d.Body); ok && len(script) < len(d.Body) {
				writeDoc(&buf, d.Origin, script)
				continue
			}
		}
		writeDoc(&buf, d.Origin, d.Body)
	}
	return buf.Bytes(), nil
}

// Key is a Kubernetes document's origin without its release:
// "kubernetes/v1.34/apis__apps__v1_openapi.json#Deployment" →
// "apis__apps__v1_openapi.json#Deployment".
func Key(origin string) string {
	rest, ok := strings.CutPrefix(origin, "kubernetes/")
	if !ok {
		return origin
	}
	if _, after, ok := strings.Cut(rest, "/"); ok {
		return after
	}
	return origin
}

// Doc is one document of a bundle.
type Doc struct {
	Origin string
	Body   []byte
}

// Split cuts a bundle into its documents.
func Split(raw []byte) ([]Doc, error) {
	var out []Doc
	sep := []byte(Separator)
	for rest := raw; len(rest) > 0; {
		if !bytes.HasPrefix(rest, sep) {
			return nil, fmt.Errorf("bundle does not start a document with %q", Separator)
		}
		rest = rest[len(sep):]
		origin, body, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("truncated document")
		}
		end := bytes.Index(body, []byte("\n"+Separator))
		if end < 0 {
			end = len(body)
		} else {
			end++
		}
		out = append(out, Doc{Origin: string(origin), Body: body[:end:end]})
		rest = body[end:]
	}
	return out, nil
}

// Compress gzips b at the best compression, with an empty header (no
// name, no time): the same input gives the same bytes with one Go
// release. TestGeneratedIsCurrent compares the decompressed content.
func Compress(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
