package main

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Cutting one importer's edge removes only what nothing else links: b is
// imported by kv alone (and takes d with it), c also by main.
func TestReachCut(t *testing.T) {
	g := graph{
		"main": {"kv", "c"},
		"kv":   {"b", "c"},
		"b":    {"d"},
		"c":    {"e"},
	}
	all := g.reach("main", "", nil)
	keys := func(m map[string]bool) []string {
		var k []string
		for p := range m {
			k = append(k, p)
		}
		sort.Strings(k)
		return k
	}
	if got := keys(minus(all, g.reach("main", "kv", []string{"b"}))); !reflect.DeepEqual(got, []string{"b", "d"}) {
		t.Errorf("cut kv→b: %v gone, want [b d]", got)
	}
	if got := keys(minus(all, g.reach("main", "kv", []string{"c"}))); len(got) != 0 {
		t.Errorf("cut kv→c: %v gone, want nothing (main imports c)", got)
	}
	if got := g.chain("kv", "d"); !reflect.DeepEqual(got, []string{"d", "b", "kv"}) {
		t.Errorf("chain kv→d: %v", got)
	}
}

func TestCodeBytes(t *testing.T) {
	nm := ` 5c73720   33554432 D crypto/internal/fips140/drbg.memory
  f9be60      77788 T github.com/google/cel-go/common/stdlib.init.0
 12ce720        472 T k8s.io/api/core/v1.(*ResourceList).Name
 12cdfa0        357 t k8s.io/api/core/v1.ResourceList.Cpu
  754ce0        100 T sync/atomic.(*Pointer[go.shape.struct { k8s.io/x.y int }]).Load
`
	got, err := codeBytes(strings.NewReader(nm))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"github.com/google/cel-go/common/stdlib": 77788, "k8s.io/api/core/v1": 829, "sync/atomic": 100}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if _, err := codeBytes(strings.NewReader("garbage\n")); err == nil {
		t.Error("a line that is not nm's was accepted")
	}
}
