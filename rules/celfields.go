package rules

import (
	"fmt"
	"reflect"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"

	"github.com/bfaudit/bfaudit/model"
)

// An artifact's labels and attributes are model.Tags, not Go maps, and
// its times model.Instant, not time.Time, so CEL's native types would show
// an object with no fields and a number. User rules see them as what they
// are: timestamps, and maps of strings to strings:
// artifact.labels["team"], "rows" in artifact.attributes,
// artifact.attributes.exists(k, ...). The map is a view of the tags, made
// without copying them: a rule reads them for every artifact of its
// kinds.

// tagFields is the environment option that declares the two fields as
// maps. It wraps the provider NativeTypes set up.
func tagFields(env *cel.Env) (*cel.Env, error) {
	return cel.CustomTypeProvider(&tagsProvider{Provider: env.CELTypeProvider()})(env)
}

// tagsProvider is the provider of NativeTypes, with the artifact's tags
// as maps.
type tagsProvider struct{ types.Provider }

var stringMap = types.NewMapType(types.StringType, types.StringType)

func (p *tagsProvider) FindStructFieldType(structType, fieldName string) (*types.FieldType, bool) {
	if structType == "model.Artifact" {
		switch fieldName {
		case "labels":
			return tagsField(func(a *model.Artifact) *model.Tags { return a.Labels }), true
		case "attributes":
			return tagsField(func(a *model.Artifact) *model.Tags { return a.Attributes }), true
		case "created_at":
			return instantField(func(a *model.Artifact) model.Instant { return a.CreatedAt }), true
		case "last_used_at":
			return instantField(func(a *model.Artifact) model.Instant { return a.LastUsedAt }), true
		case "modified_at":
			return instantField(func(a *model.Artifact) model.Instant { return a.ModifiedAt }), true
		case "expires_at":
			return instantField(func(a *model.Artifact) model.Instant { return a.ExpiresAt }), true
		}
	}
	return p.Provider.FindStructFieldType(structType, fieldName)
}

// asArtifact is the artifact a field is read from.
func asArtifact(obj any) *model.Artifact {
	switch a := obj.(type) {
	case *model.Artifact:
		return a
	case model.Artifact:
		return &a
	}
	return nil
}

// instantField reads one of an artifact's times as a CEL timestamp, as
// NativeTypes reads a time.Time; has() is true when it is known.
func instantField(of func(*model.Artifact) model.Instant) *types.FieldType {
	return &types.FieldType{
		Type: types.TimestampType,
		IsSet: func(obj any) bool {
			a := asArtifact(obj)
			return a != nil && !of(a).IsZero()
		},
		GetFrom: func(obj any) (any, error) {
			a := asArtifact(obj)
			if a == nil {
				return nil, fmt.Errorf("not an artifact: %T", obj)
			}
			return types.Timestamp{Time: of(a).Time()}, nil
		},
	}
}

// tagsField reads one of an artifact's tags as a CEL map; has() is true
// when there is at least one.
func tagsField(of func(*model.Artifact) *model.Tags) *types.FieldType {
	return &types.FieldType{
		Type: stringMap,
		IsSet: func(obj any) bool {
			a := asArtifact(obj)
			return a != nil && of(a).Len() > 0
		},
		GetFrom: func(obj any) (any, error) {
			a := asArtifact(obj)
			if a == nil {
				return nil, fmt.Errorf("not an artifact: %T", obj)
			}
			return celTags{of(a)}, nil
		},
	}
}

// celTags is tags as a CEL map (traits.Mapper).
type celTags struct{ t *model.Tags }

var mapOfStrings = reflect.TypeOf(map[string]string(nil))

func (m celTags) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if typeDesc == mapOfStrings || typeDesc.Kind() == reflect.Interface {
		return m.t.Map(), nil
	}
	return nil, fmt.Errorf("type conversion error from map to '%v'", typeDesc)
}

func (m celTags) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case types.MapType:
		return m
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", types.MapType, typeVal)
}

// Equal compares with any CEL map, as CEL compares maps: the same keys,
// each with an equal value.
func (m celTags) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok || types.Int(m.t.Len()) != o.Size() {
		return types.False
	}
	for k, v := range m.t.All() {
		ov, found := o.Find(types.String(k))
		if !found || ov.Equal(types.String(v)) != types.True {
			return types.False
		}
	}
	return types.True
}

func (m celTags) Type() ref.Type { return types.MapType }
func (m celTags) Value() any     { return m.t.Map() }

func (m celTags) Contains(key ref.Val) ref.Val {
	_, found := m.Find(key)
	return types.Bool(found)
}

func (m celTags) Get(key ref.Val) ref.Val {
	v, found := m.Find(key)
	if !found {
		return types.ValOrErr(v, "no such key: %v", key)
	}
	return v
}

func (m celTags) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	v, found := m.t.Lookup(string(k))
	if !found {
		return nil, false
	}
	return types.String(v), true
}

func (m celTags) Size() ref.Val { return types.Int(m.t.Len()) }

func (m celTags) Iterator() traits.Iterator {
	keys := make([]ref.Val, 0, m.t.Len())
	for k := range m.t.Keys() {
		keys = append(keys, types.String(k))
	}
	return types.NewDynamicList(types.DefaultTypeAdapter, keys).Iterator()
}
