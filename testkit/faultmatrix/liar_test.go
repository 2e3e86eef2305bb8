package faultmatrix

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/model"
)

// liar is the harness fake with one lie about a failure, to show that the
// matrix catches each: a matrix that passed a lying collector would
// protect nothing.
type liar struct {
	collectors.Whole

	lie    string
	broken *string // the unit that fails, once broken
}

func (l *liar) CollectUnit(ctx context.Context, _ string, sink collectors.Sink) error {
	if l.broken == nil {
		return fake{}.CollectUnit(ctx, "", sink)
	}
	unit := *l.broken
	switch l.lie {
	case "silent":
		// The unit's artifacts go missing and nothing says it failed.
		return fake{}.CollectUnit(ctx, "", dropWithin(sink, unit))
	case "wrong-unit":
		// The failure is pinned on another project.
		sink.AddError("p9", errors.New("HTTP 500"))
		return fake{}.CollectUnit(ctx, "", dropWithin(sink, unit))
	case "drops-outside":
		// The failure is reported, but the whole project's artifacts go
		// missing with the dataset's.
		sink.AddError(unit, errors.New("HTTP 500"))
		return fake{}.CollectUnit(ctx, "", dropWithin(sink, "p1"))
	}
	return errors.New("unknown lie " + l.lie)
}

// dropWithin passes on everything but the artifacts within scope.
func dropWithin(sink collectors.Sink, scope string) collectors.Sink {
	return dropping{Sink: sink, scope: scope}
}

type dropping struct {
	collectors.Sink
	scope string
}

func (d dropping) AddArtifact(a model.Artifact) {
	if !model.ScopeWithin(a.Scope, d.scope) {
		d.Sink.AddArtifact(a)
	}
}

func (d dropping) AddError(scope string, err error) {} // the fake's own report of the failure is the lie's to make

// TestLiarHelper runs the matrix on a liar; TestMatrixCatchesLies runs it
// in a child process and expects it to fail.
func TestLiarHelper(t *testing.T) {
	lie := os.Getenv("FAULTMATRIX_LIE")
	if lie == "" {
		t.Skip("run by TestMatrixCatchesLies")
	}
	scope := model.JoinScope("p1", "ds")
	Run(t, "liar", []Unit{{Kind: "dataset", Scope: scope, Setup: func(*testing.T) (collectors.Collector, func()) {
		l := &liar{lie: lie}
		return l, func() { s := scope; l.broken = &s }
	}}})
}

func TestMatrixCatchesLies(t *testing.T) {
	for _, c := range []struct{ lie, want string }{
		{"silent", "still counts as answered"},
		{"wrong-unit", "history resolved"},
		{"drops-outside", "though only"},
	} {
		t.Run(c.lie, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestLiarHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "FAULTMATRIX_LIE="+c.lie)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the matrix passed a collector that lies (%s):\n%s", c.lie, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("the matrix failed the %s liar without saying %q:\n%s", c.lie, c.want, out)
			}
		})
	}
}
