package smithy

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The protocols this kit speaks, as the service shape's trait names them.
const (
	awsQuery  = "awsQuery"
	awsJSON10 = "awsJson1_0"
	awsJSON11 = "awsJson1_1"
	restJSON1 = "restJson1"
)

// Model is one service's Smithy model: its operations and the shapes they
// take and answer. It does not change once loaded, so tests may share it.
type Model struct {
	Service  string // the service shape's name, e.g. "AWSGlue"; awsJson's X-Amz-Target prefix
	Protocol string // awsQuery, awsJson1_0, awsJson1_1 or restJson1
	Version  string // the API version; awsQuery requests carry it

	signingName     string // SigV4's name of the service, in every request's Authorization header
	xmlNamespace    string
	queryCompatible bool // awsQueryCompatible: JSON errors also name their awsQuery code
	ops             map[string]*operation
	errors          map[string]*shape // error shapes by name and by awsQuery code
}

type operation struct {
	name          string
	input, output *shape // structures; Unit is one with no members
	errors        map[string]*shape
	method, uri   string // restJson1's http trait
	code          int
}

type shape struct {
	name, typ   string             // Smithy's type (an enum is read as a string with enum values)
	members     map[string]*member // structure and union
	item        *member            // list
	key, value  *member            // map
	enum        []string           // the values an enum (or a string with the enum trait) allows
	timestamp   string             // timestampFormat
	fault       string             // an error shape's "client" or "server"
	httpStatus  int                // an error shape's httpError
	queryCode   string             // awsQueryError: the code awsQuery (and awsQueryCompatible) answers
	queryStatus int                // awsQueryError: its HTTP status
}

type member struct {
	name              string
	shape             *shape
	required          bool
	label, payload    bool   // httpLabel, httpPayload
	query, header     string // httpQuery, httpHeader
	xmlName, jsonName string
	flattened         bool   // xmlFlattened
	timestamp         string // timestampFormat, the member's or else its target's
	responseCode      bool   // httpResponseCode
	bound             bool   // any HTTP binding: the member is not in a restJson1 body
}

// Load reads a model in Smithy's JSON AST form from a file.
func Load(file string) (*Model, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return m, nil
}

//go:embed testdata/aws-models/*.json
var awsModels embed.FS

var loaded sync.Map // service name -> *Model

// AWS returns the official model of an AWS service kept in this package
// (testdata/aws-models, see its SOURCE.md): "iam", "sts", "organizations",
// "glue", "scheduler", "sqs" or "sns". Each is parsed once per test binary.
func AWS(t testing.TB, service string) *Model {
	t.Helper()
	if m, ok := loaded.Load(service); ok {
		return m.(*Model)
	}
	files, _ := awsModels.ReadDir("testdata/aws-models")
	for _, f := range files {
		if strings.HasPrefix(f.Name(), service+"-") {
			b, err := awsModels.ReadFile(path.Join("testdata/aws-models", f.Name()))
			if err == nil {
				var m *Model
				if m, err = parse(b); err == nil {
					loaded.Store(service, m)
					return m
				}
			}
			t.Fatalf("smithy: model %s: %v", f.Name(), err)
		}
	}
	t.Fatalf("smithy: no model of %q in testdata/aws-models", service)
	return nil
}

// The JSON AST, as far as this kit reads it.
type rawShape struct {
	Type               string
	Version            string
	Members            map[string]rawMember
	Member, Key, Value *rawMember
	Input, Output      *rawTarget
	Errors             []rawTarget
	Traits             map[string]json.RawMessage
}

type rawMember struct {
	Target string
	Traits map[string]json.RawMessage
}

type rawTarget struct{ Target string }

// prelude is the type of each shape of Smithy's prelude a model may target.
var prelude = map[string]string{
	"String": "string", "Blob": "blob", "Boolean": "boolean", "PrimitiveBoolean": "boolean",
	"Byte": "byte", "PrimitiveByte": "byte", "Short": "short", "PrimitiveShort": "short",
	"Integer": "integer", "PrimitiveInteger": "integer", "Long": "long", "PrimitiveLong": "long",
	"Float": "float", "PrimitiveFloat": "float", "Double": "double", "PrimitiveDouble": "double",
	"BigInteger": "bigInteger", "BigDecimal": "bigDecimal", "Timestamp": "timestamp",
	"Document": "document", "Unit": "structure",
}

func parse(b []byte) (*Model, error) {
	var doc struct {
		Smithy string
		Shapes map[string]rawShape
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(doc.Smithy, "2.") {
		return nil, fmt.Errorf("smithy version %q: this kit reads 2.x", doc.Smithy)
	}
	// Every shape first, then the members that point at them: shapes may
	// refer to themselves.
	shapes := map[string]*shape{}
	for id, raw := range doc.Shapes {
		shapes[id] = newShape(id, raw)
	}
	resolve := func(target string) (*shape, error) {
		if s := shapes[target]; s != nil {
			return s, nil
		}
		if typ, ok := prelude[strings.TrimPrefix(target, "smithy.api#")]; ok && strings.HasPrefix(target, "smithy.api#") {
			s := &shape{name: strings.TrimPrefix(target, "smithy.api#"), typ: typ, members: map[string]*member{}}
			shapes[target] = s
			return s, nil
		}
		return nil, fmt.Errorf("no shape %s", target)
	}
	newMember := func(name string, raw *rawMember) (*member, error) {
		s, err := resolve(raw.Target)
		if err != nil {
			return nil, fmt.Errorf("member %s: %w", name, err)
		}
		mb := &member{name: name, shape: s, timestamp: s.timestamp}
		tr := raw.Traits
		_, mb.required = tr["smithy.api#required"]
		_, mb.label = tr["smithy.api#httpLabel"]
		_, mb.payload = tr["smithy.api#httpPayload"]
		_, mb.flattened = tr["smithy.api#xmlFlattened"]
		_, mb.responseCode = tr["smithy.api#httpResponseCode"]
		mb.query = traitString(tr, "smithy.api#httpQuery")
		mb.header = traitString(tr, "smithy.api#httpHeader")
		mb.xmlName = traitString(tr, "smithy.api#xmlName")
		mb.jsonName = traitString(tr, "smithy.api#jsonName")
		if f := traitString(tr, "smithy.api#timestampFormat"); f != "" {
			mb.timestamp = f
		}
		_, queryParams := tr["smithy.api#httpQueryParams"]
		_, prefixHeaders := tr["smithy.api#httpPrefixHeaders"]
		mb.bound = mb.label || mb.payload || mb.responseCode || mb.query != "" || mb.header != "" || queryParams || prefixHeaders
		return mb, nil
	}
	m := &Model{ops: map[string]*operation{}, errors: map[string]*shape{}}
	var serviceErrors []rawTarget
	for id, raw := range doc.Shapes {
		s := shapes[id]
		var err error
		for name, rm := range raw.Members {
			if s.members[name], err = newMember(name, &rm); err != nil {
				return nil, fmt.Errorf("%s: %w", id, err)
			}
		}
		for _, x := range []struct {
			to  **member
			raw *rawMember
			n   string
		}{{&s.item, raw.Member, "member"}, {&s.key, raw.Key, "key"}, {&s.value, raw.Value, "value"}} {
			if x.raw != nil {
				if *x.to, err = newMember(x.n, x.raw); err != nil {
					return nil, fmt.Errorf("%s: %w", id, err)
				}
			}
		}
		if s.fault != "" {
			m.errors[s.name] = s
			if s.queryCode != "" {
				m.errors[s.queryCode] = s
			}
		}
		if raw.Type == "service" {
			if m.Service != "" {
				return nil, fmt.Errorf("two services, %s and %s: this kit reads one model per service", m.Service, s.name)
			}
			m.Service, m.Version, serviceErrors = s.name, raw.Version, raw.Errors
			for t := range raw.Traits {
				switch t {
				case "aws.protocols#" + awsQuery, "aws.protocols#" + awsJSON10, "aws.protocols#" + awsJSON11, "aws.protocols#" + restJSON1:
					m.Protocol = strings.TrimPrefix(t, "aws.protocols#")
				case "aws.protocols#awsQueryCompatible":
					m.queryCompatible = true
				}
			}
			var ns struct{ URI, Name string }
			_ = json.Unmarshal(raw.Traits["smithy.api#xmlNamespace"], &ns)
			m.xmlNamespace = ns.URI
			_ = json.Unmarshal(raw.Traits["aws.auth#sigv4"], &ns)
			m.signingName = ns.Name
		}
	}
	if m.Service == "" || m.Protocol == "" {
		return nil, fmt.Errorf("no service shape with a protocol this kit speaks (awsQuery, awsJson1_0, awsJson1_1, restJson1)")
	}
	// Every operation in the file is the service's: an AWS model file holds
	// one service, whose operations hang from it and from its resources.
	for id, raw := range doc.Shapes {
		if raw.Type != "operation" {
			continue
		}
		op := &operation{name: shapes[id].name, errors: map[string]*shape{}}
		var err error
		for _, x := range []struct {
			to  **shape
			raw *rawTarget
		}{{&op.input, raw.Input}, {&op.output, raw.Output}} {
			target := "smithy.api#Unit"
			if x.raw != nil {
				target = x.raw.Target
			}
			if *x.to, err = resolve(target); err != nil {
				return nil, fmt.Errorf("%s: %w", id, err)
			}
		}
		for _, e := range append(raw.Errors, serviceErrors...) {
			s, err := resolve(e.Target)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", id, err)
			}
			op.errors[s.name] = s
		}
		var http struct {
			Method, URI string
			Code        int
		}
		_ = json.Unmarshal(raw.Traits["smithy.api#http"], &http)
		op.method, op.uri, op.code = http.Method, http.URI, http.Code
		if m.Protocol == restJSON1 && op.method == "" {
			return nil, fmt.Errorf("%s: restJson1 operation without the http trait", id)
		}
		m.ops[op.name] = op
	}
	return m, nil
}

func newShape(id string, raw rawShape) *shape {
	s := &shape{name: id[strings.Index(id, "#")+1:], typ: raw.Type, members: map[string]*member{}}
	tr := raw.Traits
	s.timestamp = traitString(tr, "smithy.api#timestampFormat")
	s.fault = traitString(tr, "smithy.api#error")
	_ = json.Unmarshal(tr["smithy.api#httpError"], &s.httpStatus)
	var qe struct {
		Code             string
		HTTPResponseCode int `json:"httpResponseCode"`
	}
	_ = json.Unmarshal(tr["aws.protocols#awsQueryError"], &qe)
	s.queryCode, s.queryStatus = qe.Code, qe.HTTPResponseCode
	switch {
	case raw.Type == "enum":
		s.typ = "string"
		for name, m := range raw.Members {
			v := traitString(m.Traits, "smithy.api#enumValue")
			if v == "" {
				v = name // Smithy's default: the member's name
			}
			s.enum = append(s.enum, v)
		}
	case raw.Type == "intEnum":
		s.typ = "integer"
	case tr["smithy.api#enum"] != nil: // the Smithy 1.0 form, still in some models
		var values []struct{ Value string }
		_ = json.Unmarshal(tr["smithy.api#enum"], &values)
		for _, v := range values {
			s.enum = append(s.enum, v.Value)
		}
	}
	sort.Strings(s.enum)
	return s
}

// traitString reads a trait whose value is a string; "" when absent.
func traitString(traits map[string]json.RawMessage, name string) string {
	var s string
	_ = json.Unmarshal(traits[name], &s)
	return s
}

// sortedMembers lists a structure's members by name, so that checks and
// answers come out in the same order every run.
func (s *shape) sortedMembers() []*member {
	out := make([]*member, 0, len(s.members))
	for _, m := range s.members {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
