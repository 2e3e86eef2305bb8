// Package bfaudit_test holds the test that keeps the repository's layers:
// imports between top-level folders run one way, down the order below.
package bfaudit_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/bfaudit/bfaudit"

// layers are the top-level folders that hold Go code, highest first. A
// package may import packages of its own folder and of folders below its
// own, never above. internal is the ground floor: plumbing (talking to
// servers, redaction, files) that knows nothing of backfills, so it
// imports no domain package. testkit (the test kits) sits on top so that tests of
// every folder can use it; no production code imports it.
var layers = []string{
	"cmd", "bench", "tools", "deploy", "examples",
	"testkit",
	"fix",
	"audit",
	"config",
	"reports",
	"collectors",
	"rules",
	"remedy",
	"templates",
	"correlate",
	"model",
	"internal",
}

func TestImportsRunDownTheLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rank := map[string]int{}
	for i, l := range layers {
		rank[l] = i
	}
	edges := map[[2]string]string{} // folder pair -> one package import showing it
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := folder(fields[0])
		if from == "" {
			continue // the module root: this test
		}
		if _, ok := rank[from]; !ok {
			t.Errorf("%s: folder %s is not in layers: add it where it belongs (and to the README's Layout)", fields[0], from)
			continue
		}
		for _, imp := range fields[1:] {
			to := folder(imp)
			if to == "" || to == from {
				continue
			}
			if _, ok := edges[[2]string{from, to}]; !ok {
				edges[[2]string{from, to}] = strings.TrimPrefix(fields[0], module+"/") + " imports " + strings.TrimPrefix(imp, module+"/")
			}
		}
	}
	for e, why := range edges {
		if e[1] == "testkit" {
			t.Errorf("%s imports the test kits outside a test (%s)", e[0], why)
		} else if rank[e[0]] > rank[e[1]] {
			t.Errorf("%s imports %s, a higher layer (%s): move the shared part down", e[0], e[1], why)
		}
	}
	if t.Failed() {
		return
	}
	// The order above rules out circles; check the graph itself too, so a
	// wrong order cannot hide one.
	if cycle := findCycle(edges); cycle != nil {
		t.Errorf("folders import each other: %s", strings.Join(cycle, " -> "))
	}
}

// folder is the top-level folder of an import path inside the module, ""
// for the module root or a path outside it.
func folder(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	f, _, _ := strings.Cut(rest, "/")
	return f
}

func findCycle(edges map[[2]string]string) []string {
	next := map[string][]string{}
	for e := range edges {
		next[e[0]] = append(next[e[0]], e[1])
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = open
		path = append(path, n)
		for _, m := range next[n] {
			switch state[m] {
			case open:
				i := slices.Index(path, m)
				return append(slices.Clone(path[i:]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	for _, l := range layers {
		if state[l] == unseen {
			if c := visit(l); c != nil {
				return c
			}
		}
	}
	return nil
}

// The test must see a violation when there is one.
func TestFindCycle(t *testing.T) {
	edges := map[[2]string]string{{"collectors", "internal"}: "", {"internal", "rules"}: "", {"rules", "collectors"}: ""}
	if c := findCycle(edges); len(c) != 4 || c[0] != c[3] {
		t.Errorf("findCycle = %v, want a circle through collectors, internal and rules", c)
	}
	delete(edges, [2]string{"rules", "collectors"})
	if c := findCycle(edges); c != nil {
		t.Errorf("findCycle = %v on a graph without a circle", c)
	}
}
