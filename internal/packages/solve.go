// This file resolves dependency constraints to versions: every direct and
// transitive dependency of one Resolve or Cached call, grouped by package,
// against the registries' tags (online) or the cache's index.

package packages

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
)

// maxRounds bounds how often the set of transitive dependencies is
// recomputed after versions change.
const maxRounds = 2 * maxDepth

// maxDepth is the deepest chain of Configurations whose dependencies are
// followed: a Configuration maxDepth levels below a root has its own
// dependencies left out, with a warning on it naming the chain.
const maxDepth = 32

type request struct {
	dep  Dependency
	ref  string
	root int
	via  []string
}

func (r request) key() string {
	return r.ref + " " + r.dep.Constraint + " " + strings.Join(r.via, ">")
}

type group struct {
	ref  string
	reqs []int // indexes into the solver's requests
	st   *groupState
}

type groupState struct {
	pkg  *Package
	errs []error // per request of the group, in order
}

type solver struct {
	c      *Client
	ctx    context.Context
	online bool
	ix     *index

	mu      sync.Mutex
	tags    map[string]tagsResult
	pulled  map[string]pullResult
	states  map[string]*groupState
	done    int
	total   int
	started int
}

type tagsResult struct {
	tags []string
	err  error
}

type pullResult struct {
	pkg *Package
	err error
}

func (c *Client) resolve(ctx context.Context, deps []Dependency, online bool) []Result {
	r := &solver{c: c, ctx: ctx, online: online, tags: map[string]tagsResult{}, pulled: map[string]pullResult{}, states: map[string]*groupState{}}
	ix, err := c.cache.readIndex()
	if err != nil {
		c.logf("%v", err)
	}
	r.ix = ix

	roots := make([]request, len(deps))
	for i, d := range deps {
		roots[i] = request{dep: d, ref: c.ref(d), root: i}
		roots[i].dep.Package = roots[i].ref
	}
	reqs := roots
	var groups []*group
	var cut map[string]*Error // by ref: Configurations whose dependencies were left out
	for round := 0; ; round++ {
		groups = groupRequests(reqs)
		r.solveAll(groups, reqs)
		if round == maxRounds || ctx.Err() != nil {
			break
		}
		next := append([]request(nil), roots...)
		cut = nil
		for _, g := range groups {
			p := g.st.pkg
			if p == nil || p.Kind != "Configuration" {
				continue
			}
			parent := reqs[g.reqs[0]]
			deps := ParseMeta(p.Path, p.Meta).Deps
			if len(parent.via) >= maxDepth && len(deps) > 0 {
				if cut == nil {
					cut = map[string]*Error{}
				}
				cut[g.ref] = &Error{Kind: KindTooDeep, Package: p.Ref, Registry: registryOf(p.Ref),
					Msg: fmt.Sprintf("the dependencies of %s:%s are not checked: it is %d Configurations below %s, and chains are followed %d levels deep",
						p.Ref, p.Version, len(parent.via), parent.via[0], maxDepth)}
				continue
			}
			via := append(append([]string(nil), parent.via...), p.Ref+":"+p.Version)
			for _, d := range deps {
				d.File = p.Path
				d.Package = c.ref(d)
				next = append(next, request{dep: d, ref: d.Package, root: parent.root, via: via})
			}
		}
		if sameRequests(next, reqs) {
			break
		}
		reqs = next
	}

	pos := map[int]int{} // request index → position in its group
	for _, g := range groups {
		for k, i := range g.reqs {
			pos[i] = k
		}
	}
	byReq := map[int]*group{}
	for _, g := range groups {
		for _, i := range g.reqs {
			byReq[i] = g
		}
	}
	out := make([]Result, len(reqs))
	for i, q := range reqs {
		g := byReq[i]
		out[i] = Result{Dep: q.dep, Root: q.root, Via: q.via}
		if g != nil && g.st != nil {
			out[i].Package = g.st.pkg
			if e := g.st.errs[pos[i]]; e != nil {
				out[i].Err = e
			} else if e := cut[q.ref]; e != nil && g.reqs[0] == i {
				out[i].Err = e
			}
		}
	}
	return out
}

func groupRequests(reqs []request) []*group {
	var gs []*group
	by := map[string]*group{}
	for i, q := range reqs {
		g := by[q.ref]
		if g == nil {
			g = &group{ref: q.ref}
			by[q.ref] = g
			gs = append(gs, g)
		}
		g.reqs = append(g.reqs, i)
	}
	return gs
}

func sameRequests(a, b []request) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key() != b[i].key() {
			return false
		}
	}
	return true
}

// solveAll solves every group, reusing earlier solutions of the same
// package with the same constraints.
func (r *solver) solveAll(groups []*group, reqs []request) {
	var todo []*group
	for _, g := range groups {
		if st, ok := r.states[r.stateKey(g, reqs)]; ok {
			g.st = st
			continue
		}
		todo = append(todo, g)
	}
	r.mu.Lock()
	r.total += len(todo)
	r.mu.Unlock()
	sem := make(chan struct{}, r.c.opts.Concurrency)
	var wg sync.WaitGroup
	for _, g := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func(g *group) {
			defer func() { <-sem; wg.Done() }()
			g.st = r.solve(g, reqs)
			r.mu.Lock()
			r.done++
			r.mu.Unlock()
		}(g)
	}
	wg.Wait()
	for _, g := range todo {
		r.states[r.stateKey(g, reqs)] = g.st
	}
}

func (r *solver) stateKey(g *group, reqs []request) string {
	var cs []string
	for _, i := range g.reqs {
		cs = append(cs, strconv.Quote(reqs[i].dep.Constraint)+"@"+strings.Join(reqs[i].via, ">"))
	}
	return g.ref + " " + strings.Join(cs, ",")
}

// progress reports msg for the next package, as "msg (n/total)".
func (r *solver) progress(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started++
	if r.c.opts.Progress == nil {
		return
	}
	r.c.opts.Progress(Progress{Done: r.done, Total: r.total, Message: fmt.Sprintf("%s (%d/%d)", msg, r.started, r.total)})
}

// parsedConstraint is a request's version: a digest or semver constraints.
type parsedConstraint struct {
	digest string
	sem    *semver.Constraints
}

func parseConstraint(ref, s string) (parsedConstraint, error) {
	if s == "" {
		return parsedConstraint{}, &Error{Kind: KindConstraint, Package: ref, Msg: "version is required for " + ref + " (a semver constraint such as \">=v1.0.0\", or a digest)"}
	}
	if strings.HasPrefix(s, "sha256:") || strings.HasPrefix(s, "@sha256:") {
		d, err := digest.Parse(strings.TrimPrefix(s, "@"))
		if err != nil {
			return parsedConstraint{}, &Error{Kind: KindConstraint, Package: ref, Constraint: s, Msg: "invalid digest " + strconv.Quote(s), Err: err}
		}
		return parsedConstraint{digest: d.String()}, nil
	}
	c, err := semver.NewConstraint(s)
	if err != nil {
		return parsedConstraint{}, &Error{Kind: KindConstraint, Package: ref, Constraint: s, Msg: "invalid version constraint " + strconv.Quote(s), Err: err}
	}
	return parsedConstraint{sem: c}, nil
}

// satisfies reports whether a resolved version meets the constraint.
func (p parsedConstraint) satisfies(version, manifestDigest string) bool {
	if p.digest != "" {
		return p.digest == version || p.digest == manifestDigest
	}
	v, err := semver.NewVersion(version)
	return err == nil && p.sem.Check(v)
}

func (r *solver) label(q request) string {
	if len(q.via) > 0 {
		return "via " + q.via[len(q.via)-1]
	}
	return filepath.Base(q.dep.File)
}

func (r *solver) solve(g *group, reqs []request) *groupState {
	st := &groupState{errs: make([]error, len(g.reqs))}
	cons := make([]parsedConstraint, len(g.reqs))
	var valid []int // positions in g.reqs
	for k, i := range g.reqs {
		pc, err := parseConstraint(g.ref, reqs[i].dep.Constraint)
		if err != nil {
			st.errs[k] = err
			continue
		}
		cons[k] = pc
		valid = append(valid, k)
	}
	if len(valid) == 0 {
		return st
	}
	if err := r.ctx.Err(); err != nil {
		r.setErr(st, valid, classify(causeOf(r.ctx, err), g.ref, registryOf(g.ref), "resolving"))
		return st
	}
	if !r.online {
		r.fromCache(g, reqs, st, cons, valid)
		return st
	}

	// Everything the registry does for this package shares one deadline.
	ctx, cancel := context.WithTimeoutCause(r.ctx, r.c.timeouts.Pull, &pullDeadlineError{d: r.c.timeouts.Pull})
	defer cancel()
	version, ok := r.choose(ctx, g, reqs, st, cons, valid)
	if !ok {
		return st
	}
	pkg, err := r.pull(ctx, g.ref, version)
	if err != nil {
		r.fallback(g, reqs, st, cons, valid, err)
		return st
	}
	st.pkg = pkg
	now := time.Now().UTC()
	err = r.c.cache.update(func(ix *index) {
		for _, k := range valid {
			if st.errs[k] != nil {
				continue
			}
			c := reqs[g.reqs[k]].dep.Constraint
			ix.Resolutions[resKey(g.ref, c)] = resolution{Package: g.ref, Constraint: c, Version: pkg.Version, Digest: pkg.Digest, Checked: now}
		}
	})
	if err != nil {
		r.c.logf("package cache: %v", err)
	}
	return st
}

func (r *solver) setErr(st *groupState, ks []int, err error) {
	for _, k := range ks {
		if st.errs[k] == nil {
			st.errs[k] = err
		}
	}
}

// choose picks the version to pull: the digest of digest pins, else the
// highest tag satisfying every constraint. Requests no tag satisfies get
// KindNoMatch; constraints that only conflict together get KindConflict
// (and the first request's own choice is pulled).
func (r *solver) choose(ctx context.Context, g *group, reqs []request, st *groupState, cons []parsedConstraint, valid []int) (string, bool) {
	var digests, sems []int
	for _, k := range valid {
		if cons[k].digest != "" {
			digests = append(digests, k)
		} else {
			sems = append(sems, k)
		}
	}
	if len(digests) > 0 {
		d := cons[digests[0]].digest
		same := len(sems) == 0
		for _, k := range digests {
			same = same && cons[k].digest == d
		}
		if !same {
			r.setErr(st, valid, r.conflict(g, reqs, cons, valid))
		}
		if cons[valid[0]].digest != "" || len(sems) == 0 {
			return cons[valid[0]].digest, true
		}
		sems = []int{valid[0]}
	}

	tags, err := r.listTags(ctx, g.ref)
	if err != nil {
		r.fallback(g, reqs, st, cons, valid, err)
		return "", false
	}
	versions := semverTags(tags)
	best := func(ks []int) *semver.Version {
		for _, v := range versions {
			ok := true
			for _, k := range ks {
				ok = ok && cons[k].sem.Check(v)
			}
			if ok {
				return v
			}
		}
		return nil
	}
	if v := best(sems); v != nil {
		return v.Original(), true
	}
	var sat []int
	for _, k := range sems {
		if best([]int{k}) != nil {
			sat = append(sat, k)
			continue
		}
		c := reqs[g.reqs[k]].dep.Constraint
		st.errs[k] = &Error{Kind: KindNoMatch, Package: g.ref, Registry: registryOf(g.ref), Constraint: c, Tags: newest(versions, 5),
			Msg: "no version of " + g.ref + " satisfies " + strconv.Quote(c) + newestText(versions)}
	}
	if len(sat) == 0 {
		return "", false
	}
	if v := best(sat); v != nil {
		return v.Original(), true
	}
	r.setErr(st, sat, r.conflict(g, reqs, cons, sat))
	return best(sat[:1]).Original(), true
}

func (r *solver) conflict(g *group, reqs []request, cons []parsedConstraint, ks []int) *Error {
	var parts []string
	var cs []string
	for _, k := range ks {
		q := reqs[g.reqs[k]]
		parts = append(parts, strconv.Quote(q.dep.Constraint)+" ("+r.label(q)+")")
		cs = append(cs, q.dep.Constraint)
	}
	return &Error{Kind: KindConflict, Package: g.ref, Registry: registryOf(g.ref), Constraint: strings.Join(cs, ", "),
		Msg: "conflicting versions of " + g.ref + ": " + strings.Join(parts, ", ") + "; no version satisfies all"}
}

// semverTags returns the tags that are complete semantic versions, newest
// first. Like Crossplane, "v1" (which parses as v1.0.0) is skipped.
func semverTags(tags []string) []*semver.Version {
	var vs []*semver.Version
	for _, t := range tags {
		v, err := semver.NewVersion(t)
		if err != nil || v.String() != strings.TrimPrefix(t, "v") {
			continue
		}
		vs = append(vs, v)
	}
	sort.Sort(sort.Reverse(semver.Collection(vs)))
	return vs
}

func newest(vs []*semver.Version, n int) []string {
	var out []string
	for i := 0; i < len(vs) && i < n; i++ {
		out = append(out, vs[i].Original())
	}
	return out
}

func newestText(vs []*semver.Version) string {
	if len(vs) == 0 {
		return "; the repository has no semver tags"
	}
	return "; newest tags: " + strings.Join(newest(vs, 5), ", ")
}

func (r *solver) listTags(ctx context.Context, ref string) ([]string, error) {
	r.mu.Lock()
	t, ok := r.tags[ref]
	r.mu.Unlock()
	if ok {
		return t.tags, t.err
	}
	tags, err := r.c.listTags(ctx, ref)
	r.mu.Lock()
	r.tags[ref] = tagsResult{tags, err}
	r.mu.Unlock()
	return tags, err
}

// fallback serves a group from the cache when the registry could not be
// used, marking the results stale.
func (r *solver) fallback(g *group, reqs []request, st *groupState, cons []parsedConstraint, valid []int, err error) {
	e := classify(err, g.ref, registryOf(g.ref), "resolving")
	var pending []int
	for _, k := range valid {
		if st.errs[k] == nil {
			pending = append(pending, k)
		}
	}
	// A registry out of reach, refusing us, or serving a broken package
	// (a corrupt newer tag): keep the last good version from the cache.
	if e.Kind == KindNetwork || e.Kind == KindUnauthorized || e.Kind == KindInvalid {
		tmp := &groupState{errs: make([]error, len(st.errs))}
		r.fromCache(g, reqs, tmp, cons, pending)
		if tmp.pkg != nil {
			st.pkg = tmp.pkg
			for _, k := range pending {
				if tmp.errs[k] != nil {
					st.errs[k] = e
					continue
				}
				w := *e
				w.Stale = true
				w.Note = "using the cached " + tmp.pkg.Version
				if e.Kind == KindInvalid {
					w.Note = "refused; using the cached " + tmp.pkg.Version
				}
				st.errs[k] = &w
			}
			return
		}
	}
	r.setErr(st, pending, e)
}

// fromCache resolves a group from the cache index only.
func (r *solver) fromCache(g *group, reqs []request, st *groupState, cons []parsedConstraint, valid []int) {
	var cands []resolution
	for _, k := range valid {
		if res, ok := r.ix.Resolutions[resKey(g.ref, reqs[g.reqs[k]].dep.Constraint)]; ok {
			cands = append(cands, res)
		}
	}
	// Prefer a cached version that satisfies every constraint.
	sort.SliceStable(cands, func(a, b int) bool {
		return r.satisfiesAll(cands[a], cons, valid) && !r.satisfiesAll(cands[b], cons, valid)
	})
	for _, res := range cands {
		pkg, err := r.c.loadCached(r.ix, g.ref, res.Version, res.Digest)
		if err != nil {
			r.c.logf("package cache: %s:%s: %v", g.ref, res.Version, err)
			continue
		}
		st.pkg = pkg
		break
	}
	for _, k := range valid {
		c := reqs[g.reqs[k]].dep.Constraint
		switch {
		case st.pkg == nil:
			st.errs[k] = &Error{Kind: KindNotCached, Package: g.ref, Constraint: c, Msg: g.ref + " " + strconv.Quote(c) + " is not in the package cache (run crd-lsp pull)"}
		case !cons[k].satisfies(st.pkg.Version, st.pkg.Digest):
			st.errs[k] = &Error{Kind: KindNotCached, Package: g.ref, Constraint: c, Msg: "the cached " + g.ref + ":" + st.pkg.Version + " does not satisfy " + strconv.Quote(c) + " (run crd-lsp pull)"}
		}
	}
}

func (r *solver) satisfiesAll(res resolution, cons []parsedConstraint, valid []int) bool {
	for _, k := range valid {
		if !cons[k].satisfies(res.Version, res.Digest) {
			return false
		}
	}
	return true
}
