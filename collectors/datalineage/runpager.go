package datalineage

import (
	"context"

	"cloud.google.com/go/datacatalog/lineage/apiv1/lineagepb"
	"github.com/bfaudit/bfaudit/internal/gcp"
	"github.com/bfaudit/bfaudit/internal/remote"
)

// runPager reads a process's runs a page at a time, so lastRun can stop
// at the first page that answers its question; bounded like listAll.
// lastRun's error names the process.
type runPager struct {
	c       *Collector
	process string
	pages   remote.Pager
	token   string
	done    bool
}

func newRunPager(c *Collector, process string) *runPager {
	return &runPager{c: c, process: process, pages: remote.Pager{What: "datalineage.listRuns", Max: c.MaxPages, MaxKey: "max_pages"}}
}

type runPage struct {
	runs []*lineagepb.Run
	next string
}

func (p *runPager) next(ctx context.Context) ([]*lineagepb.Run, error) {
	if p.done {
		return nil, nil
	}
	pg, err := gcp.Call(ctx, p.c.retry, p.c.Timeout, func(ctx context.Context) (runPage, error) {
		runs, next, err := p.c.client.ListRuns(ctx, &lineagepb.ListRunsRequest{Parent: p.process}, gcp.NoClientRetry, gcp.AnswerCap).InternalFetch(pageSize, p.token)
		return runPage{runs, next}, err
	})
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(pg.runs))
	for i, r := range pg.runs {
		keys[i] = r.GetName()
	}
	if err := p.pages.Next(pg.next, keys...); err != nil {
		return nil, err
	}
	p.token, p.done = pg.next, pg.next == ""
	return pg.runs, nil
}
