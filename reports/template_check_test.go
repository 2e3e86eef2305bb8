package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckTemplate(t *testing.T) {
	for format, ref := range map[string]string{"markdown": "report.md.tmpl", "html": "report.html.tmpl"} {
		if err := CheckTemplate(format, ref); err != nil {
			t.Errorf("embedded %s template: %v", format, err)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tmpl")
	os.WriteFile(bad, []byte("{{ range .Findings }}"), 0o644)
	for _, tt := range []struct{ format, ref, want string }{
		{"markdown", "@" + bad, "bad.tmpl"},
		{"html", "@" + filepath.Join(dir, "none.tmpl"), "file not found"},
		{"html", "@" + dir, "not a regular file"},
		{"json", "report.md.tmpl", "not rendered from a template"},
	} {
		if err := CheckTemplate(tt.format, tt.ref); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckTemplate(%s, %s) = %v, want %q", tt.format, tt.ref, err, tt.want)
		}
	}
}

// An id breaks after its colons in a narrow cell, and stays escaped: an
// id is read from the estate, where anyone who can name a run writes it.
func TestBreakAfterColons(t *testing.T) {
	for in, want := range map[string]string{
		"BF-1234":                            "BF-1234",
		"airflow:scheduler:daily_revenue:63": "airflow:<wbr>scheduler:<wbr>daily_revenue:<wbr>63",
		`x:<script>alert(1)</script>`:        "x:<wbr>&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if got := string(breakAfterColons(in)); got != want {
			t.Errorf("breakAfterColons(%q) = %q, want %q", in, got, want)
		}
	}
}
