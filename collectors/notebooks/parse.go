package notebooks

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Bounds of one notebook's parse: a hostile or runaway notebook (a loop
// that printed for hours) costs at most this much scanning.
const (
	maxCells       = 10000     // cells read; the rest are counted as unscanned
	maxOutputs     = 1000      // outputs read per cell
	maxPieceBytes  = 256 << 10 // text scanned per cell source or output
	maxScanBytes   = 2 << 20   // text scanned per notebook
	maxMetaLabels  = 100       // metadata keys offered to the selector
	maxLabelLength = 200
)

// piece is one scannable text of a notebook: a cell's source (output 0)
// or one part of one of its saved outputs, cells and outputs counted from
// 1; cell 0 is the notebook's metadata. part names the output's part: a
// stream's name (stdout, stderr), a MIME type of its data (text/plain,
// text/html, application/json...) or error (its name, value and
// traceback).
type piece struct {
	cell, output int
	part         string
	text         string
}

// where names lines of a piece, as AttrSecrets writes it: "metadata line
// 1", "cell 3 source line 2", "cell 3 output 1 text/html lines 4, 9".
func (p piece) where(lines ...int) string {
	nums := make([]string, len(lines))
	for i, l := range lines {
		nums[i] = strconv.Itoa(l)
	}
	at := "line " + strings.Join(nums, ", ")
	if len(lines) > 1 {
		at = "lines " + strings.Join(nums, ", ")
	}
	switch {
	case p.cell == 0:
		return "metadata " + at
	case p.output == 0:
		return fmt.Sprintf("cell %d source %s", p.cell, at)
	}
	return fmt.Sprintf("cell %d output %d %s %s", p.cell, p.output, p.part, at)
}

// notebook is what a parse keeps of a notebook: the texts to scan, the
// string-valued top-level metadata (labels for the selector), and how
// much was left unscanned by the bounds above.
type notebook struct {
	format    int
	pieces    []piece
	labels    map[string]string
	unscanned int // cells, outputs or texts skipped, and texts cut short
	scanned   int // bytes of text kept to scan
}

// multiline is nbformat's text: one string or a list of lines, joined as
// nbformat joins them: lines that keep their newlines (as Jupyter writes
// them) end to end, lines without (as IPython 0.12 to 1.x wrote them) with
// a newline between each, so that line numbers are the notebook's and no
// two lines run into one.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return errors.New("text is neither a string nor a list of strings")
	}
	sep := ""
	if len(list) > 0 && !strings.HasSuffix(list[0], "\n") && !strings.HasSuffix(list[0], "\r") {
		sep = "\n"
	}
	*m = multiline(strings.Join(list, sep))
	return nil
}

type output struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`      // a stream's: stdout, stderr (v4)
	Stream     string                     `json:"stream"`    // a stream's (v2, v3)
	Text       *multiline                 `json:"text"`      // stream (v2 to v4); pyout, display_data (v2, v3: text/plain)
	Data       map[string]json.RawMessage `json:"data"`      // execute_result, display_data (v4)
	Traceback  []string                   `json:"traceback"` // error (v4), pyerr (v2, v3)
	EName      string                     `json:"ename"`
	EValue     string                     `json:"evalue"`
	// v2 and v3 keep mime data beside the text at the top level (html, latex,
	// json, javascript) and images too (png, jpeg): text kinds only.
	HTML  *multiline `json:"html"`
	LaTeX *multiline `json:"latex"`
	JSON  *multiline `json:"json"`
}

type cell struct {
	CellType string     `json:"cell_type"`
	Source   *multiline `json:"source"` // v4; v2, v3 markdown and raw
	Input    *multiline `json:"input"`  // v2, v3 code
	Outputs  []output   `json:"outputs"`
	// Attachments (v4 markdown images) are never read: binary data.
}

type document struct {
	NBFormat   *int            `json:"nbformat"`
	Metadata   json.RawMessage `json:"metadata"`
	Cells      []cell          `json:"cells"`
	Worksheets []struct {
		Cells []cell `json:"cells"`
	} `json:"worksheets"`
}

// parse reads an nbformat v4, v3 or v2 notebook. Errors never quote the
// notebook: it may hold a credential.
func parse(raw []byte) (*notebook, error) {
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not an nbformat notebook: %s", jsonProblem(err))
	}
	if doc.NBFormat == nil {
		return nil, errors.New("not an nbformat notebook: no nbformat version")
	}
	nb := &notebook{format: *doc.NBFormat, labels: metadataLabels(doc.Metadata)}
	if len(doc.Metadata) > 0 {
		// Metadata is scanned too (cell 0): a kernel spec or an extension
		// can keep a token there.
		nb.add(piece{text: string(doc.Metadata)})
	}
	var cells []cell
	switch nb.format {
	case 4:
		cells = doc.Cells
	case 2, 3: // IPython 0.12 to 2: cells in worksheets, the same shapes in both
		for _, ws := range doc.Worksheets {
			cells = append(cells, ws.Cells...)
		}
	default:
		return nil, fmt.Errorf("nbformat %d: only versions 2, 3 and 4 are read", nb.format)
	}
	if len(cells) > maxCells {
		nb.unscanned += len(cells) - maxCells
		cells = cells[:maxCells]
	}
	for i, c := range cells {
		src := c.Source
		if src == nil {
			src = c.Input
		}
		if src != nil {
			nb.add(piece{cell: i + 1, part: "source", text: string(*src)})
		}
		outs := c.Outputs
		if len(outs) > maxOutputs {
			nb.unscanned += len(outs) - maxOutputs
			outs = outs[:maxOutputs]
		}
		for j, o := range outs {
			for _, p := range o.parts() {
				p.cell, p.output = i+1, j+1
				nb.add(p)
			}
		}
	}
	return nb, nil
}

func (nb *notebook) add(p piece) {
	limit := min(maxPieceBytes, maxScanBytes-nb.scanned)
	if limit <= 0 {
		nb.unscanned++
		return
	}
	if len(p.text) > limit {
		p.text = p.text[:limit]
		nb.unscanned++
	}
	nb.scanned += len(p.text)
	nb.pieces = append(nb.pieces, p)
}

// parts are the texts an output saved, each on its own so that a line
// number and a part name say exactly where a credential is: a stream's
// text (part: its name), each text kind of its data (text/plain,
// text/html, any text/*, application/json: never image/png or other
// binary kinds), v2 and v3's text, html, latex and json fields (their MIME
// types), and an error's name, value and traceback (part: error).
func (o output) parts() []piece {
	var out []piece
	add := func(part string, text string) {
		if text != "" {
			out = append(out, piece{part: part, text: text})
		}
	}
	if o.Text != nil {
		part := "text/plain" // v2 and v3's pyout and display_data keep text/plain as text
		if o.OutputType == "stream" || o.Name != "" || o.Stream != "" {
			part = cmp.Or(o.Name, o.Stream, "stream")
		}
		add(part, string(*o.Text))
	}
	for part, m := range map[string]*multiline{"text/html": o.HTML, "text/latex": o.LaTeX, "application/json": o.JSON} {
		if m != nil {
			add(part, string(*m))
		}
	}
	kinds := make([]string, 0, len(o.Data))
	for k := range o.Data {
		if strings.HasPrefix(k, "text/") || k == "application/json" {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		var m multiline
		if err := json.Unmarshal(o.Data[k], &m); err == nil {
			add(k, string(m))
		} else if k == "application/json" {
			add(k, string(o.Data[k]))
		}
	}
	var errText []string
	if o.EName != "" || o.EValue != "" {
		errText = append(errText, o.EName+": "+o.EValue)
	}
	errText = append(errText, o.Traceback...)
	add("error", strings.Join(errText, "\n"))
	sort.SliceStable(out, func(i, j int) bool { return out[i].part < out[j].part })
	return out
}

// metadataLabels are the notebook metadata's top-level string values
// (backfill_id: bf-1234), bounded, for the selector.
func metadataLabels(raw json.RawMessage) map[string]string {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if _, ok := v.(string); ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > maxMetaLabels {
		keys = keys[:maxMetaLabels]
	}
	out := map[string]string{}
	for _, k := range keys {
		v := m[k].(string)
		if len(v) > maxLabelLength {
			v = v[:maxLabelLength]
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// jsonProblem says what is wrong with JSON without quoting it: a syntax
// error's offset, or a type mismatch's field.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("field %s is a JSON %s, not the type nbformat says", typ.Field, typ.Value)
	}
	return "invalid JSON"
}
