package main

import (
	"os"
	"strings"
	"testing"
)

// Trial friction 12: make build says what it does, and how big the
// stripped binary came out.
func TestMakeBuildSaysWhatItDoes(t *testing.T) {
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\nbuild:\n")
	if !ok {
		t.Fatal("no build target in the Makefile")
	}
	target, _, _ := strings.Cut(rest, "\n\n")
	for _, want := range []string{`echo "building bin/bfaudit (the first build downloads and compiles about 500 modules`,
		`-trimpath -ldflags "-s -w"`, `echo "built bin/bfaudit: `, " MB"} {
		if !strings.Contains(target, want) {
			t.Errorf("make build lacks %q:\n%s", want, target)
		}
	}
}
