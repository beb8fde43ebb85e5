package document

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	for _, s := range []string{strings.Repeat("[", 100000), strings.Repeat("- ", 5000) + "x", threeDocs} {
		t0 := time.Now()
		f := Parse("x", 1, []byte(s))
		t1 := time.Now()
		for _, d := range f.Docs {
			d.Object()
		}
		t2 := time.Now()
		checkFileInvariants(t, f)
		fmt.Println(len(s), t1.Sub(t0), t2.Sub(t1), time.Since(t2))
	}
}
