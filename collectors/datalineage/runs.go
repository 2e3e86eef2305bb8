package datalineage

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/model"
)

// linksPerBatch is the most links BatchSearchLinkProcesses takes at once.
const linksPerBatch = 100

// lastRun is a process's latest completed run.
type lastRun struct {
	display string
	end     time.Time
	state   string
}

// builds finds the processes behind the links and, for each table the
// links lead to, the latest completed run of the processes writing it:
// its Build (At zero when none of them has completed a run). via maps
// each link to its process, the edge's Via; processes is how many
// processes were read (each with its runs).
func (c *Collector) builds(ctx context.Context, parent string, links []*lineagepb.Link) (_ []model.Build, via map[string]string, processes int, _ error) {
	via = map[string]string{}
	writers := map[string][]string{} // target table (TableRef) -> processes
	for start := 0; start < len(links); start += linksPerBatch {
		batch := links[start:min(start+linksPerBatch, len(links))]
		names := make([]string, len(batch))
		target := map[string]string{}
		for i, l := range batch {
			names[i] = l.GetName()
			target[l.GetName()] = model.TableRef(fqn(l.GetTarget()))
		}
		found, err := listAll(ctx, c, "datalineage.batchSearchLinkProcesses", func(ctx context.Context) fetchFunc[*lineagepb.ProcessLinks] {
			return c.client.BatchSearchLinkProcesses(ctx, &lineagepb.BatchSearchLinkProcessesRequest{Parent: parent, Links: names}, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch
		}, (*lineagepb.ProcessLinks).GetProcess)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("processes of links: %w", err)
		}
		for _, pl := range found {
			p := pl.GetProcess()
			if p == "" {
				return nil, nil, 0, fmt.Errorf("processes of links: an entry has no process")
			}
			for _, li := range pl.GetLinks() {
				t, ok := target[li.GetLink()]
				if !ok {
					continue // not a link asked about
				}
				if via[li.GetLink()] == "" {
					via[li.GetLink()] = p
				}
				if !slices.Contains(writers[t], p) {
					writers[t] = append(writers[t], p)
				}
			}
		}
	}
	runs := map[string]lastRun{}
	for _, ps := range writers {
		for _, p := range ps {
			if _, done := runs[p]; done {
				continue
			}
			r, err := c.lastRun(ctx, p)
			if err != nil {
				return nil, nil, 0, err
			}
			runs[p] = r
		}
	}
	tables := make([]string, 0, len(writers))
	for t := range writers {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	out := make([]model.Build, 0, len(tables))
	for _, t := range tables {
		b := model.Build{Table: t, System: "datalineage"}
		for _, p := range writers[t] {
			r := runs[p]
			if b.Node == "" || r.end.After(b.At) {
				b.Node, b.At, b.Status = r.display, r.end, r.state
			}
		}
		out = append(out, b)
	}
	return out, via, len(runs), nil
}

// lastRun reads a process's name and its runs, newest first (the API
// lists them by start time, descending), up to the first page holding a
// completed one; the latest end time among that page's completed runs
// is the process's last build.
func (c *Collector) lastRun(ctx context.Context, process string) (lastRun, error) {
	proc, err := gcp.Call(ctx, c.retry, c.Timeout, func(ctx context.Context) (*lineagepb.Process, error) {
		return c.client.GetProcess(ctx, &lineagepb.GetProcessRequest{Name: process}, gcp.NoClientRetry, gcp.AnswerCap)
	})
	if err != nil {
		return lastRun{}, fmt.Errorf("get process %s: %w", process, err)
	}
	r := lastRun{display: proc.GetDisplayName()}
	if r.display == "" {
		r.display = process
	}
	pager := newRunPager(c, process)
	for {
		page, err := pager.next(ctx)
		if err != nil {
			return lastRun{}, fmt.Errorf("list runs of %s: %w", process, err)
		}
		for _, run := range page {
			if run.GetState() != lineagepb.Run_COMPLETED || run.GetEndTime() == nil {
				continue
			}
			if end := run.GetEndTime().AsTime(); end.After(r.end) {
				r.end, r.state = end, strings.ToLower(run.GetState().String())
			}
		}
		if !r.end.IsZero() || pager.done {
			return r, nil
		}
	}
}
