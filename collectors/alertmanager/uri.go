package alertmanager

import (
	"net/url"

	"github.com/bfaudit/bfaudit/model"
)

// A silence's URI, built and read here only:
//
//	alertmanager://<source>/silences/<id>   a silence, its id path-escaped

func (a *Alertmanager) uri(id string) string {
	return "alertmanager://" + a.env.Source + "/silences/" + url.PathEscape(id)
}

// parseSilenceURI reads a silence's id back from its URI.
func parseSilenceURI(uri string) (id string, ok bool) {
	segs, ok := model.URISegments(uri, "alertmanager")
	if !ok || len(segs) != 2 || segs[0] != "silences" {
		return "", false
	}
	return segs[1], true
}
