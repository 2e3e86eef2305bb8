package fix

import (
	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/records"
)

// Dirs returns where the first records source reads decision records and
// plans, as the config names them, for the templates' "where".
func Dirs(instances []collectors.Instance) (recordsDir, plansDir string) {
	for _, in := range instances {
		r, ok := in.Collector.(*records.Records)
		if !ok {
			continue
		}
		if recordsDir == "" && len(r.Records) > 0 {
			recordsDir = r.Records[0]
		}
		if plansDir == "" && len(r.Plans) > 0 {
			plansDir = r.Plans[0]
		}
	}
	return recordsDir, plansDir
}
