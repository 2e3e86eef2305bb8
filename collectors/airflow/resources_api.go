package airflow

import (
	"context"
	"fmt"
)

// The deployment-wide listings on the REST API: GET /pools, /connections
// and /variables, limit/offset pages like every other listing. Both API
// versions have them under the same paths and collection keys.

func (a *httpAPI) listPools(ctx context.Context) ([]poolJSON, error) {
	return pageAll(ctx, spec(a, "/pools", poolKey, func(ctx context.Context, offset, limit int) ([]poolJSON, int, error) {
		var page poolCollection
		err := a.get(ctx, "/pools", pageQuery(offset, limit), &page)
		return page.Pools, page.TotalEntries, err
	}))
}

func (a *httpAPI) listConnections(ctx context.Context) ([]connectionJSON, error) {
	return pageAll(ctx, spec(a, "/connections", connectionKey, func(ctx context.Context, offset, limit int) ([]connectionJSON, int, error) {
		var page connectionCollection
		err := a.get(ctx, "/connections", pageQuery(offset, limit), &page)
		return page.Connections, page.TotalEntries, err
	}))
}

func (a *httpAPI) listVariables(ctx context.Context) ([]variableJSON, error) {
	return pageAll(ctx, spec(a, "/variables", variableKey, func(ctx context.Context, offset, limit int) ([]variableJSON, int, error) {
		var page variableCollection
		err := a.get(ctx, "/variables", pageQuery(offset, limit), &page)
		return page.Variables, page.TotalEntries, err
	}))
}

// The same listings in an export: pools.json, connections.json and
// variables.json at its root, each one collection. A missing file is an
// error at its unit, not an empty listing: an export made without it
// says nothing of what is there, so nothing it held before may be taken
// for gone. Set pools / connections / variables to false to not read one.

func (d *dirAPI) listPools(context.Context) ([]poolJSON, error) {
	var c poolCollection
	err := d.readListing("pools.json", &c)
	return c.Pools, err
}

func (d *dirAPI) listConnections(context.Context) ([]connectionJSON, error) {
	var c connectionCollection
	err := d.readListing("connections.json", &c)
	return c.Connections, err
}

func (d *dirAPI) listVariables(context.Context) ([]variableJSON, error) {
	var c variableCollection
	err := d.readListing("variables.json", &c)
	return c.Variables, err
}

func (d *dirAPI) readListing(name string, out checker) error {
	found, err := d.read(name, maxSharedFileBytes, out)
	if err == nil && !found {
		return fmt.Errorf("%s: not in the export", name)
	}
	return err
}
