package main

import (
	"testing"
	"time"

	"github.com/crd-lsp/crd-lsp/bench/workload"
)

func pub(version *int, errLines ...int) publish {
	p := publish{Version: version, at: time.Now()}
	for _, l := range errLines {
		var d diagnostic
		d.Severity = 1
		d.Range.Start.Line = l
		p.Diagnostics = append(p.Diagnostics, d)
	}
	return p
}

func ver(v int) *int { return &v }

func TestAwaitRightVersioned(t *testing.T) {
	e := &workload.Edit{Line: 8, Invalid: true}
	ch := make(chan publish, 4)
	ch <- pub(ver(2))    // an older version: skipped
	ch <- pub(ver(3), 8) // this edit's: right
	p, wrong, err := awaitRight(ch, 3, e, time.Second)
	if err != nil || wrong != 0 || *p.Version != 3 {
		t.Errorf("got version %v, wrong %d, err %v", p.Version, wrong, err)
	}
	ch <- pub(ver(4), 9) // this edit's, on the wrong line: taken and counted wrong
	if _, wrong, err := awaitRight(ch, 4, e, time.Second); err != nil || wrong != 1 {
		t.Errorf("wrong %d, err %v; want the wrong publish counted", wrong, err)
	}
}

func TestAwaitRightVersionless(t *testing.T) {
	valid := &workload.Edit{Line: 8}
	ch := make(chan publish, 4)
	ch <- pub(nil, 8) // a late publish of the previous (invalid) state
	ch <- pub(nil)
	p, wrong, err := awaitRight(ch, 5, valid, time.Second)
	if err != nil || wrong != 1 || len(p.Diagnostics) != 0 {
		t.Errorf("got %v, wrong %d, err %v; want the right publish, one wrong before it", p.Diagnostics, wrong, err)
	}
	ch <- pub(nil, 8)
	if _, _, err := awaitRight(ch, 6, valid, 50*time.Millisecond); err == nil {
		t.Error("a wrong publish and then nothing was accepted")
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Errorf("median = %v", got)
	}
}
