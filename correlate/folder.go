package correlate

import "strings"

// Folder returns the folder an object of a bucket belongs to, so that
// every file of one backfill's state is one artifact (Cloud Storage and
// S3 list objects, not folders): the object name up to and including the
// deepest directory component in which the selector finds a backfill id
// ("checkpoints/bf_1234_replay/chk-17/part-0" ->
// "checkpoints/bf_1234_replay/"). When no directory component carries an
// id but the object's own last component does, the folder is the object
// name itself (a single savepoint file). When nothing in the path carries
// one (the object is tied by its metadata or its bucket's labels), the
// folder is the first directory under prefix, or the object itself when
// it lies directly under prefix. byPath reports whether the path carried
// the id.
func (s *Selector) Folder(prefix, name string) (folder string, byPath bool) {
	parts := strings.Split(name, "/")
	if dir, ok := s.deepestDir(parts[:len(parts)-1]); ok {
		return dir, true
	}
	if last := parts[len(parts)-1]; last != "" {
		if _, ok := s.FromName(last); ok {
			return name, true
		}
	}
	return firstDir(prefix, name), false
}

// deepestDir is the prefix of the path ending with the deepest of dirs
// that carries an id, with its trailing '/'.
func (s *Selector) deepestDir(dirs []string) (string, bool) {
	for i := len(dirs) - 1; i >= 0; i-- {
		if dirs[i] == "" {
			continue
		}
		if _, ok := s.FromName(dirs[i]); ok {
			return strings.Join(dirs[:i+1], "/") + "/", true
		}
	}
	return "", false
}

// firstDir is the first directory of name below prefix, with its trailing
// '/', or name itself when it lies directly under prefix.
func firstDir(prefix, name string) string {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return name
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return name
	}
	return name[:len(prefix)+i+1]
}
