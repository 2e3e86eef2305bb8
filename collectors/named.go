package collectors

// Namer is implemented by collectors that put their source name into URIs
// and messages (`name:` of the source entry, which Decode does not pass
// through to the collector's own fields).
type Namer interface {
	SetSourceName(name string)
}
