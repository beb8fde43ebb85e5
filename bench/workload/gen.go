package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Options say where the CRDs are and how much to generate.
type Options struct {
	Full   string // the folder of all 2,043 upjet AWS CRDs
	Subset string // the 389-CRD subset the managed resources' kinds come from
	Out    string // where to write (a temp or cache folder; never committed)
	Kinds  int    // kinds used (50)
	Docs   int    // managed resources in the main workload (1,000)
	Large  int    // documents in the large workload (10,000)
	// Keystroke file: Buckets documents of ten lines each (300).
	Buckets int
	// Edits written for the keystroke benchmark (each flips one value).
	Edits int
	// Convert writes the CRDs as JSON Schemas (kubeconform's layout)
	// into Out/jsonschema-50 and Out/jsonschema-all.
	Convert func(crdFile, outDir string) error
}

// Defaults fills unset counts with the figures.
func (o *Options) Defaults() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Kinds, 50)
	def(&o.Docs, 1000)
	def(&o.Large, 10000)
	def(&o.Buckets, 300)
	def(&o.Edits, 1000)
}

// Manifest describes what was generated (Out/manifest.json).
type Manifest struct {
	Stamp string `json:"stamp"`
	// Kinds used, as group/version/Kind, and their CRD files in Schemas50.
	Kinds      []string `json:"kinds"`
	Schemas50  string   `json:"schemas50"` // folder holding only the used CRDs
	SchemasAll string   `json:"schemasAll"`
	Subset     string   `json:"subset"`
	// Workloads: folders of one document per file, files of many.
	Workloads []Workload `json:"workloads"`
	// JSON Schemas of the used and of all CRDs, in kubeconform's
	// {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json layout.
	JSONSchema50  string    `json:"jsonSchema50,omitempty"`
	JSONSchemaAll string    `json:"jsonSchemaAll,omitempty"`
	Keystroke     Keystroke `json:"keystroke"`
	FirstDiag     FirstDiag `json:"firstDiag"`
}

// Workload is a set of valid documents on disk.
type Workload struct {
	Name  string `json:"name"`
	Path  string `json:"path"` // a folder of files, or one file
	Docs  int    `json:"docs"`
	Files int    `json:"files"`
}

// Keystroke is the 300-document file and its edit sequence.
type Keystroke struct {
	Dir   string `json:"dir"`  // workspace folder (the file and the Bucket CRD)
	File  string `json:"file"` // the file, inside Dir
	Docs  int    `json:"docs"`
	Lines int    `json:"lines"`
	// The Bucket CRD's JSON Schema (for yaml-language-server).
	JSONSchema string `json:"jsonSchema,omitempty"`
	Edits      []Edit `json:"edits"`
}

// Edit replaces one value on one line (0-based line, byte = UTF-16
// columns: the file is ASCII). After it, the file has exactly one error,
// on Line, when Invalid, and none otherwise.
type Edit struct {
	Line    int    `json:"line"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Text    string `json:"text"`
	Invalid bool   `json:"invalid"`
}

// FirstDiag is a workspace of all CRDs and one custom resource whose only
// error needs its CRD's schema.
type FirstDiag struct {
	Dir  string `json:"dir"`
	File string `json:"file"`
	Line int    `json:"line"` // 0-based line of the error
	CRDs int    `json:"crds"`
}

// Generate writes every workload under o.Out and returns the manifest
// (also written as Out/manifest.json, last, with stamp).
func Generate(o Options, stamp string) (*Manifest, error) {
	o.Defaults()
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	_ = os.Remove(filepath.Join(o.Out, "manifest.json"))
	kinds, err := selectKinds(o.Subset, o.Kinds)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Stamp: stamp, SchemasAll: o.Full, Subset: o.Subset, Schemas50: filepath.Join(o.Out, "schemas-50")}
	if err := resetDir(m.Schemas50); err != nil {
		return nil, err
	}
	for _, k := range kinds {
		m.Kinds = append(m.Kinds, k.APIVersion()+"/"+k.Kind)
		if err := copyFile(k.File, filepath.Join(m.Schemas50, filepath.Base(k.File))); err != nil {
			return nil, err
		}
	}
	for _, w := range []struct {
		name  string
		n     int
		split bool
	}{
		{fmt.Sprintf("mrs-%d-files", o.Docs), o.Docs, true},
		{fmt.Sprintf("mrs-%d-one-file", o.Docs), o.Docs, false},
		{fmt.Sprintf("mrs-%d-one-file", o.Large), o.Large, false},
		{fmt.Sprintf("mrs-%d-files", o.Large), o.Large, true},
	} {
		wl, err := writeWorkload(o.Out, w.name, kinds, w.n, w.split)
		if err != nil {
			return nil, err
		}
		m.Workloads = append(m.Workloads, wl)
	}
	if o.Convert != nil {
		m.JSONSchema50 = filepath.Join(o.Out, "jsonschema-50")
		m.JSONSchemaAll = filepath.Join(o.Out, "jsonschema-all")
		for _, d := range []string{m.JSONSchema50, m.JSONSchemaAll} {
			if err := resetDir(d); err != nil {
				return nil, err
			}
		}
		for _, k := range kinds {
			if err := o.Convert(k.File, m.JSONSchema50); err != nil {
				return nil, err
			}
		}
		all, err := yamlFiles(o.Full)
		if err != nil {
			return nil, err
		}
		for _, f := range all {
			if err := o.Convert(f, m.JSONSchemaAll); err != nil {
				return nil, err
			}
		}
	}
	if m.Keystroke, err = writeKeystroke(o); err != nil {
		return nil, err
	}
	if o.Convert != nil {
		m.Keystroke.JSONSchema = filepath.Join(m.JSONSchemaAll, "s3.aws.upbound.io", "bucket_v1beta2.json")
	}
	if m.FirstDiag, err = writeFirstDiag(o); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, os.WriteFile(filepath.Join(o.Out, "manifest.json"), b, 0o644)
}

// ReadManifest reads Out/manifest.json.
func ReadManifest(out string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// selectKinds picks n managed-resource kinds of the subset: every kind
// the generator can fill (provider configuration kinds left out), sorted by
// file name, then n of them evenly spaced, so that every API group of the
// subset is represented.
func selectKinds(dir string, n int) ([]Kind, error) {
	files, err := yamlFiles(dir)
	if err != nil {
		return nil, err
	}
	var usable []Kind
	for _, f := range files {
		crd, err := ReadCRD(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		k, err := StorageKind(f, crd)
		if err != nil || isProviderKind(k) {
			continue
		}
		if _, err := k.Object("probe", 0); err != nil {
			continue
		}
		usable = append(usable, k)
	}
	if len(usable) < n {
		return nil, fmt.Errorf("%s: only %d usable kinds, %d wanted", dir, len(usable), n)
	}
	out := make([]Kind, n)
	for i := range out {
		out[i] = usable[i*len(usable)/n]
	}
	return out, nil
}

// Document returns the i-th document of a workload over kinds: kinds
// interleave (document i is of kind i mod len(kinds)).
func Document(kinds []Kind, i int) ([]byte, error) {
	k := kinds[i%len(kinds)]
	obj, err := k.Object(fmt.Sprintf("%s-%05d", strings.ToLower(k.Kind), i), i)
	if err != nil {
		return nil, err
	}
	return Marshal(obj)
}

func writeWorkload(out, name string, kinds []Kind, n int, split bool) (Workload, error) {
	w := Workload{Name: name, Docs: n}
	if split {
		w.Path = filepath.Join(out, name)
		w.Files = n
		if err := resetDir(w.Path); err != nil {
			return w, err
		}
		for i := 0; i < n; i++ {
			b, err := Document(kinds, i)
			if err != nil {
				return w, err
			}
			k := kinds[i%len(kinds)]
			p := filepath.Join(w.Path, fmt.Sprintf("%05d-%s-%s.yaml", i, strings.ToLower(k.Kind), strings.Split(k.Group, ".")[0]))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return w, err
			}
		}
		return w, nil
	}
	w.Path = filepath.Join(out, name+".yaml")
	w.Files = 1
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		b, err := Document(kinds, i)
		if err != nil {
			return w, err
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return w, os.WriteFile(w.Path, buf.Bytes(), 0o644)
}

// bucketCRD is the kind the keystroke file and the first-diagnostic
// workspace use.
const bucketCRD = "s3.aws.upbound.io_buckets.yaml"

// bucketDoc is one ten-line S3 Bucket document; forceDestroy (line 8 of
// the document, value at column 18) is the value the edits flip.
const bucketDoc = `---
apiVersion: s3.aws.upbound.io/v1beta2
kind: Bucket
metadata:
  name: bench-bucket-%05d
spec:
  forProvider:
    region: us-east-1
    forceDestroy: false
    tags: {team: bench, index: "%d"}
`

const (
	flipLine   = 8
	flipColumn = 18
	validValue = "false"
	// invalidValue is a string where a boolean belongs: an error for the
	// API server (and any JSON Schema validator), in YAML 1.1 and 1.2.
	invalidValue = "maybe"
	linesPerDoc  = 10
)

func writeKeystroke(o Options) (Keystroke, error) {
	k := Keystroke{Dir: filepath.Join(o.Out, "keystroke"), File: "buckets.yaml", Docs: o.Buckets, Lines: o.Buckets * linesPerDoc}
	if err := resetDir(k.Dir); err != nil {
		return k, err
	}
	if err := os.MkdirAll(filepath.Join(k.Dir, "crds"), 0o755); err != nil {
		return k, err
	}
	if err := copyFile(filepath.Join(o.Subset, bucketCRD), filepath.Join(k.Dir, "crds", bucketCRD)); err != nil {
		return k, err
	}
	var buf bytes.Buffer
	for i := 0; i < o.Buckets; i++ {
		fmt.Fprintf(&buf, bucketDoc, i, i)
	}
	if err := os.WriteFile(filepath.Join(k.Dir, k.File), buf.Bytes(), 0o644); err != nil {
		return k, err
	}
	k.Edits = Edits(o.Buckets, o.Edits)
	return k, nil
}

// Edits is the keystroke edit sequence over a file of docs Bucket
// documents: edit 2p makes document (137·p mod docs) invalid, edit 2p+1
// makes it valid again, so documents all over the file are edited and the
// expected diagnostics after every edit are known.
func Edits(docs, n int) []Edit {
	out := make([]Edit, 0, n)
	for i := 0; i < n; i++ {
		d := (i / 2 * 137) % docs
		e := Edit{Line: d*linesPerDoc + flipLine, Start: flipColumn, Invalid: i%2 == 0}
		if e.Invalid {
			e.End, e.Text = flipColumn+len(validValue), invalidValue
		} else {
			e.End, e.Text = flipColumn+len(invalidValue), validValue
		}
		out = append(out, e)
	}
	return out
}

func writeFirstDiag(o Options) (FirstDiag, error) {
	fd := FirstDiag{Dir: filepath.Join(o.Out, "firstdiag"), File: "bucket.yaml", Line: flipLine}
	crds := filepath.Join(fd.Dir, "crds")
	if err := os.MkdirAll(crds, 0o755); err != nil {
		return fd, err
	}
	files, err := yamlFiles(o.Full)
	if err != nil {
		return fd, err
	}
	for _, f := range files {
		if err := copyFile(f, filepath.Join(crds, filepath.Base(f))); err != nil {
			return fd, err
		}
	}
	fd.CRDs = len(files)
	doc := strings.Replace(fmt.Sprintf(bucketDoc, 0, 0), "forceDestroy: "+validValue, "forceDestroy: "+invalidValue, 1)
	return fd, os.WriteFile(filepath.Join(fd.Dir, fd.File), []byte(doc), 0o644)
}

func yamlFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

func resetDir(d string) error {
	if err := os.RemoveAll(d); err != nil {
		return err
	}
	return os.MkdirAll(d, 0o755)
}

// copyFile copies src to dst unless dst already has src's size and
// content (the 2,043-CRD copy is kept between runs).
func copyFile(src, dst string) error {
	sb, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if db, err := os.ReadFile(dst); err == nil && bytes.Equal(sb, db) {
		return nil
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, bytes.NewReader(sb)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
