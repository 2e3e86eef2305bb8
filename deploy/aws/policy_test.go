// Package aws holds the IAM policies of the AWS collectors and fix
// actions; its test holds them to the code.
package aws

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sdkService is the import path of the SDK's service clients.
const sdkService = "github.com/aws/aws-sdk-go-v2/service/"

// s3Actions are the S3 operations whose IAM action has another name.
var s3Actions = map[string]string{
	"ListObjectsV2":                   "ListBucket",
	"HeadBucket":                      "ListBucket",
	"GetBucketLifecycleConfiguration": "GetLifecycleConfiguration",
	"GetObjectLockConfiguration":      "GetBucketObjectLockConfiguration",
	"DeleteObjects":                   "DeleteObject",
	"HeadObject":                      "GetObject",
}

// free are the operations no IAM permission guards.
var free = map[string]bool{"sts:GetCallerIdentity": true}

type policy struct {
	Statement []struct {
		Action any `json:"Action"`
	} `json:"Statement"`
}

func actions(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p policy
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []string
	for _, s := range p.Statement {
		switch a := s.Action.(type) {
		case string:
			out = append(out, a)
		case []any:
			for _, v := range a {
				out = append(out, v.(string))
			}
		}
	}
	return out
}

// calls lists the IAM actions of the SDK calls in a package's non-test
// files: every call hands the client an &<service>.<Operation>Input{}.
// Calls in fix.go are the fix actions'; the rest the collector's.
func calls(t *testing.T, dir string) (read, fix map[string]string) {
	t.Helper()
	read, fix = map[string]string{}, map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		services := map[string]string{} // local name → service
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			svc, ok := strings.CutPrefix(path, sdkService)
			if !ok || strings.Contains(svc, "/") {
				continue
			}
			name := svc
			if imp.Name != nil {
				name = imp.Name.Name
			}
			services[name] = svc
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			op, isInput := strings.CutSuffix(sel.Sel.Name, "Input")
			svc := services[pkg.Name]
			if !ok || !isInput || svc == "" {
				return true
			}
			if a, ok := s3Actions[op]; ok && svc == "s3" {
				op = a
			}
			action := svc + ":" + op
			where := fset.Position(lit.Pos()).String()
			if filepath.Base(f) == "fix.go" {
				fix[action] = where
			} else {
				read[action] = where
			}
			return true
		})
	}
	return read, fix
}

// TestPoliciesCoverTheCode fails when a collector calls AWS with an
// action the read policy does not grant (its source would fail with
// AccessDenied where the docs say it works), or a fix action with one the
// fix policy does not; and when the read policy grants a write.
func TestPoliciesCoverTheCode(t *testing.T) {
	readPolicy, fixPolicy := actions(t, "bfaudit-read.json"), actions(t, "bfaudit-fix.json")
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "collectors", "*"))
	dirs = append(dirs, filepath.Join("..", "..", "internal", "awsconf"))
	used := 0
	for _, dir := range dirs {
		read, fix := calls(t, dir)
		for a, where := range read {
			used++
			if !free[a] && !slices.Contains(readPolicy, a) {
				t.Errorf("%s calls %s: not in deploy/aws/bfaudit-read.json", where, a)
			}
		}
		for a, where := range fix {
			used++
			if !free[a] && !slices.Contains(fixPolicy, a) && !slices.Contains(readPolicy, a) {
				t.Errorf("%s calls %s: not in deploy/aws/bfaudit-fix.json", where, a)
			}
		}
	}
	if used == 0 {
		t.Fatal("no AWS SDK call found in collectors/ or internal/awsconf: the walk is broken")
	}
	for _, a := range readPolicy {
		op := a[strings.IndexByte(a, ':')+1:]
		if !strings.HasPrefix(op, "Get") && !strings.HasPrefix(op, "List") && !strings.HasPrefix(op, "Describe") && a != "sts:AssumeRole" {
			t.Errorf("the read policy grants %s, which is not a read", a)
		}
	}
}
