package builtin

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// KubernetesMinors are the built-in Kubernetes minors, oldest first; the
// last is NewestKubernetes.
var KubernetesMinors = []string{"1.34", "1.35", "1.36", NewestKubernetes}

// NewestKubernetes is the newest built-in Kubernetes minor, the default
// target when neither the settings nor a cluster say otherwise.
const NewestKubernetes = "1.37"

// same is the body of a difference document that is the newest bundle's
// document of the same key (see generate.Diff).
const same = "#same\n"

var olderLoaded sync.Map // minor → *loaded

// KubernetesMinor returns the built-in Kubernetes kinds of one minor of
// KubernetesMinors ("1.34"). The newest is Kubernetes(); an older one is
// read on first use from its compressed difference from the newest and
// its generated index: its documents are the newest's where they are the
// same (shared, no copy), its own where it has them, and the newest's
// edited where they differ — an edited document is built when first read
// (File.Text), so that a process holds only the documents it uses.
func KubernetesMinor(minor string) (Set, error) {
	if minor == NewestKubernetes {
		return Kubernetes()
	}
	if !slices.Contains(KubernetesMinors, minor) {
		return Set{}, fmt.Errorf("no built-in schemas for Kubernetes %s (built in: %s)", minor, strings.Join(KubernetesMinors, ", "))
	}
	v, _ := olderLoaded.LoadOrStore(minor, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() { l.set, l.err = readOlder(minor) })
	set := l.set
	set.Files = append([]File(nil), l.set.Files...)
	return set, l.err
}

func readOlder(minor string) (Set, error) {
	file := "kubernetes-v" + minor + ".diff.yaml.gz"
	newest, err := Kubernetes()
	if err != nil {
		return Set{}, err
	}
	zipped, err := olderKubernetes.ReadFile("data/" + file)
	if err != nil {
		return Set{}, fmt.Errorf("built-in schemas %s: %w", file, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return Set{}, fmt.Errorf("built-in schemas %s: %w", file, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return Set{}, fmt.Errorf("built-in schemas %s: %w", file, err)
	}
	diff, err := read(file, raw, "kubernetes", "v"+minor, KindKubernetes)
	if err != nil {
		return Set{}, err
	}
	indexFile := "kubernetes-v" + minor + ".yaml" + indexSuffix
	index, err := olderKubernetes.ReadFile("data/" + indexFile)
	if err != nil {
		return Set{}, fmt.Errorf("built-in schemas %s: %w", indexFile, err)
	}
	entries, err := parseIndex(indexFile, index)
	if err != nil {
		return Set{}, err
	}
	if len(entries) != len(diff.Files) {
		return Set{}, fmt.Errorf("built-in schemas %s: %d documents, its index %d", file, len(diff.Files), len(entries))
	}
	byKey := make(map[string]File, len(newest.Files))
	for _, f := range newest.Files {
		byKey[kubernetesKey(f.Name)] = f
	}
	for i, f := range diff.Files {
		if entries[i].name != f.Name {
			return Set{}, fmt.Errorf("built-in schemas %s: document %d is %s, its index says %s", file, i+1, f.Name, entries[i].name)
		}
		diff.Files[i].Index = entries[i].defs
		isSame, isEdit := string(f.Data) == same, bytes.HasPrefix(f.Data, []byte(edited))
		if !isSame && !isEdit {
			continue
		}
		base, ok := byKey[kubernetesKey(f.Name)]
		if !ok {
			return Set{}, fmt.Errorf("built-in schemas %s: %s refers to a document the newest bundle lacks", file, f.Name)
		}
		if isSame {
			diff.Files[i].Data = base.Data
			continue
		}
		script, name := f.Data[len(edited):], f.Name
		diff.Files[i].Data = nil
		diff.Files[i].build = &lazyText{fn: func() ([]byte, error) {
			d, err := applyEdits(base.Data, script)
			if err != nil {
				return nil, fmt.Errorf("built-in schemas %s: %s: %w", file, name, err)
			}
			return d, nil
		}}
	}
	return diff, nil
}

// edited starts a difference document written as line edits of the
// newest bundle's document (see generate.Edited).
const edited = "#edit\n"

// applyEdits applies line edits ("=N" keep, "-N" skip, "+N" and N lines
// to insert) to base.
func applyEdits(base, script []byte) ([]byte, error) {
	out := make([]byte, 0, len(base)+len(script))
	nextLine := func(b []byte) ([]byte, []byte, bool) {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, b, false
		}
		return b[:i+1], b[i+1:], true
	}
	for len(script) > 0 {
		op, rest, ok := nextLine(script)
		if !ok || len(op) < 3 {
			return nil, fmt.Errorf("bad edit line %q", op)
		}
		n, err := strconv.Atoi(string(op[1 : len(op)-1]))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("bad edit line %q", op)
		}
		script = rest
		for range n {
			var line []byte
			switch op[0] {
			case '=', '-':
				if line, base, ok = nextLine(base); !ok {
					return nil, fmt.Errorf("edit %q runs past the document", op)
				}
				if op[0] == '=' {
					out = append(out, line...)
				}
			case '+':
				if line, script, ok = nextLine(script); !ok {
					return nil, fmt.Errorf("edit %q runs past the script", op)
				}
				out = append(out, line...)
			default:
				return nil, fmt.Errorf("bad edit line %q", op)
			}
		}
	}
	if len(base) > 0 {
		return nil, fmt.Errorf("edits leave %d bytes of the document unused", len(base))
	}
	return out[:len(out):len(out)], nil
}

// kubernetesKey is a document's origin without its release (see
// generate.Key).
func kubernetesKey(origin string) string {
	rest, ok := strings.CutPrefix(origin, "kubernetes/")
	if !ok {
		return origin
	}
	if _, after, ok := strings.Cut(rest, "/"); ok {
		return after
	}
	return origin
}

// CompareMinors orders two minors of the form "1.34" numerically.
func CompareMinors(a, b string) int {
	am, an := splitMinor(a)
	bm, bn := splitMinor(b)
	if am != bm {
		return am - bm
	}
	return an - bn
}

func splitMinor(s string) (int, int) {
	maj, min, _ := strings.Cut(s, ".")
	m, _ := strconv.Atoi(maj)
	n, _ := strconv.Atoi(min)
	return m, n
}

// ParseMinor reads the Kubernetes minor of a version: "1.34", "v1.34",
// "v1.34.2", or a server's gitVersion such as "v1.34.2-gke.1200" or
// "v1.34.1+k3s1".
func ParseMinor(s string) (string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	maj, rest, ok := strings.Cut(s, ".")
	if !ok {
		return "", false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 || end < len(rest) && !strings.ContainsRune(".-+", rune(rest[end])) {
		return "", false
	}
	m, err1 := strconv.Atoi(maj)
	n, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil || m < 1 {
		return "", false
	}
	return strconv.Itoa(m) + "." + strconv.Itoa(n), true
}

// KubernetesChoice is the built-in Kubernetes minor a workspace targets.
type KubernetesChoice struct {
	Minor string // one of KubernetesMinors
	// Note, when set, tells the user once why Minor is not what was asked
	// for (an unsupported setting, a cluster's minor not built in).
	Note string
	// Invalid: the setting itself is unusable (the CLI exits with 2).
	Invalid bool
}

// ChooseKubernetes picks the built-in minor: the setting's when given
// (crdLsp.kubernetesVersion, --kubernetes-version), else the cluster
// server's (its gitVersion; "" without a cluster), else the newest. A
// setting that is not a built-in minor falls back to the newest, a
// cluster's minor that is not built in to the nearest built-in one; both
// say so in Note. A cluster version that names no release (a server
// built from source) chooses the newest.
func ChooseKubernetes(setting, clusterVersion string) KubernetesChoice {
	if strings.TrimSpace(setting) != "" {
		m, ok := ParseMinor(setting)
		switch {
		case !ok:
			return KubernetesChoice{Minor: NewestKubernetes, Invalid: true, Note: fmt.Sprintf("%q is not a Kubernetes version (want a minor such as %s; built in: %s); using Kubernetes %s", setting, NewestKubernetes, strings.Join(KubernetesMinors, ", "), NewestKubernetes)}
		case !slices.Contains(KubernetesMinors, m):
			return KubernetesChoice{Minor: NewestKubernetes, Invalid: true, Note: fmt.Sprintf("no built-in schemas for Kubernetes %s (built in: %s); using Kubernetes %s", m, strings.Join(KubernetesMinors, ", "), NewestKubernetes)}
		}
		return KubernetesChoice{Minor: m}
	}
	if strings.TrimSpace(clusterVersion) == "" {
		return KubernetesChoice{Minor: NewestKubernetes}
	}
	m, ok := ParseMinor(clusterVersion)
	if !ok {
		// A server built from source says v0.0.0-master+$Format:%H$
		// (the standalone apiextensions-apiserver does): nothing to
		// choose by, and nothing the user can act on.
		return KubernetesChoice{Minor: NewestKubernetes}
	}
	if slices.Contains(KubernetesMinors, m) {
		return KubernetesChoice{Minor: m}
	}
	nearest := KubernetesMinors[0]
	if CompareMinors(m, nearest) > 0 {
		nearest = NewestKubernetes
	}
	return KubernetesChoice{Minor: nearest, Note: fmt.Sprintf("the cluster runs Kubernetes %s, which has no built-in schemas (built in: %s); using the nearest, Kubernetes %s", m, strings.Join(KubernetesMinors, ", "), nearest)}
}
