package smithy

import (
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestModelsAreTheOfficialCopies holds every model file to the git blob
// SOURCE.md gives for it: the files are AWS's, unedited.
func TestModelsAreTheOfficialCopies(t *testing.T) {
	source, err := os.ReadFile("testdata/aws-models/SOURCE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([^`]+\\.json)` \\| `[^`]+` \\| `([0-9a-f]{40})` \\|").FindAllStringSubmatch(string(source), -1)
	files, _ := filepath.Glob("testdata/aws-models/*.json")
	if len(rows) != len(files) || len(files) == 0 {
		t.Fatalf("SOURCE.md lists %d models, testdata/aws-models holds %d", len(rows), len(files))
	}
	for _, row := range rows {
		b, err := os.ReadFile(filepath.Join("testdata/aws-models", row[1]))
		if err != nil {
			t.Fatal(err)
		}
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(b))
		h.Write(b)
		if got := fmt.Sprintf("%x", h.Sum(nil)); got != row[2] {
			t.Errorf("%s: git blob %s, SOURCE.md says %s", row[1], got, row[2])
		}
	}
}

func TestLoadReadsEveryModel(t *testing.T) {
	for _, c := range []struct{ service, name, protocol, version string }{
		{"iam", "AWSIdentityManagementV20100508", awsQuery, "2010-05-08"},
		{"sts", "AWSSecurityTokenServiceV20110615", awsQuery, "2011-06-15"},
		{"sns", "AmazonSimpleNotificationService", awsQuery, "2010-03-31"},
		{"organizations", "AWSOrganizationsV20161128", awsJSON11, "2016-11-28"},
		{"glue", "AWSGlue", awsJSON11, "2017-03-31"},
		{"sqs", "AmazonSQS", awsJSON10, "2012-11-05"},
		{"scheduler", "AWSChronosService", restJSON1, "2021-06-30"},
		{"lakeformation", "AWSLakeFormation", restJSON1, "2017-03-31"},
	} {
		m := AWS(t, c.service)
		if m.Service != c.name || m.Protocol != c.protocol || m.Version != c.version {
			t.Errorf("%s: got %s %s %s, want %s %s %s", c.service, m.Service, m.Protocol, m.Version, c.name, c.protocol, c.version)
		}
	}
	if _, err := Load("testdata/no-such-model.json"); err == nil {
		t.Error("Load of a missing file: no error")
	}
}
