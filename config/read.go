package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/bfaudit/bfaudit/internal/safefile"
)

// MaxFileSize caps the config file; a config is a few kilobytes.
const MaxFileSize = 16 << 20

// configType says how to parse a config file: from its extension, in any
// case (bfaudit.YAML), or else from its content: a file without one (a
// Kubernetes ConfigMap key mounted as `config`) is JSON when it is valid
// JSON and YAML otherwise. TOML is only read from a .toml file.
func configType(path string, data []byte) string {
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")); ext {
	case "json", "toml":
		return ext
	case "yaml", "yml":
		return "yaml"
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return "json"
	}
	return "yaml"
}

// readFile reads the config file at path into v and returns its bytes.
// Only a regular file is read (a FIFO would block the audit), and a file
// with no settings at all is an error: an empty ConfigMap would otherwise
// audit nothing and report "no findings".
func readFile(v *viper.Viper, path string) ([]byte, error) {
	data, err := safefile.ReadLimit(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("file not found")
	}
	if err != nil {
		return nil, err
	}
	typ := configType(path, data)
	if isEmpty(data, typ) {
		return nil, errors.New("the file holds no settings (it is empty or only comments); bfaudit needs at least one source (`bfaudit config sample` prints a starting point)")
	}
	v.SetConfigType(typ)
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, readError(err, data)
	}
	return data, nil
}

// isEmpty reports whether a config file holds no settings: no bytes, only
// blank lines and comments, a null document or an empty mapping.
func isEmpty(data []byte, typ string) bool {
	switch typ {
	case "json":
		var v any
		if json.Unmarshal(data, &v) != nil {
			return len(bytes.TrimSpace(data)) == 0 // viper says what is wrong
		}
		m, isMap := v.(map[string]any)
		return v == nil || (isMap && len(m) == 0)
	case "toml":
		for _, line := range strings.Split(string(data), "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				return false
			}
		}
		return true
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return false // viper says what is wrong
	}
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return true
	case n.Kind == yaml.MappingNode && len(n.Content) == 0:
		return true
	}
	return false
}
