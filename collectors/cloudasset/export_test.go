package cloudasset

import (
	"testing"
	"time"
)

// FaultFake lets faultmatrix_test.go (package cloudasset_test) break one
// unit of the fake Asset API between two collections.
type FaultFake struct{ f *fakeAsset }

// FaultAccount is BF-7001's elevated principal in the fixture.
const FaultAccount = faultAccount

// NewFaultFixture serves the sample estate (BF-7001's machinery in project
// proj, a subscription on its topic in project other) and returns a
// collector searching projects/proj and projects/other, configured and
// Init-ed.
func NewFaultFixture(t *testing.T) (*Collector, *FaultFake) {
	f := newFakeAsset(t, sampleEstate())
	c := newCollector(t, f.start().URL, "projects/proj", "projects/other")
	c.Timeout = 5 * time.Second
	return c, &FaultFake{f: f}
}

// Deny makes every search of scope answer 403.
func (ff *FaultFake) Deny(scope string) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.denied[scope] = true
}

// Fail makes every search whose query holds fragment answer status.
func (ff *FaultFake) Fail(fragment string, status int) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.failing[fragment] = status
}

// StripData makes the resource of that full name come without its data.
func (ff *FaultFake) StripData(name string) {
	ff.f.mu.Lock()
	defer ff.f.mu.Unlock()
	ff.f.stripped[name] = true
}
