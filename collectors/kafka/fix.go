package kafka

import (
	"context"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/bfaudit/bfaudit/model"
	"github.com/bfaudit/bfaudit/remedy"
)

// kafkaSystem deletes consumer groups through the source's admin client
// (its brokers, SASL login, TLS and timeout).
type kafkaSystem struct {
	src     *Kafka
	adm     *kadm.Client
	release func()
}

func newKafka(k *Kafka) (*kafkaSystem, error) {
	adm, release, err := k.AdminClient()
	if err != nil {
		return nil, err
	}
	return &kafkaSystem{src: k, adm: adm, release: release}, nil
}

// Close releases the admin client the system built.
func (s *kafkaSystem) Close() error {
	s.release()
	return nil
}

func (s *kafkaSystem) group(a *model.Artifact) (string, error) {
	g, ok := ParseKafka(a)
	if !ok {
		return "", fmt.Errorf("kafka: %s is not a consumer group bfaudit can act on", a.URI)
	}
	return g.Group, nil
}

// Read describes the group again: gone when its coordinator does not know
// it; its members counted, so a group that gained a member since the audit
// (a consumer started again) is left alone.
func (s *kafkaSystem) Read(ctx context.Context, a *model.Artifact, _ remedy.Action) (remedy.Observed, error) {
	name, err := s.group(a)
	if err != nil {
		return remedy.Observed{}, err
	}
	state, members, found, err := s.src.Describe(ctx, s.adm, name)
	if err != nil || !found {
		return remedy.Observed{}, err
	}
	return remedy.Observed{Found: true, State: map[string]string{model.AttrMembers: strconv.Itoa(members), AttrGroupState: state}}, nil
}

// Expected is the members count the audit saw.
func (s *kafkaSystem) Expected(a *model.Artifact, _ remedy.Action) map[string]string {
	return remedy.Saw(a, model.AttrMembers)
}

// Act deletes the group. Kafka itself refuses to delete a group that has
// members (NON_EMPTY_GROUP), so one a consumer joined after the read is
// not cut off.
func (s *kafkaSystem) Act(ctx context.Context, a *model.Artifact, _ remedy.Action) error {
	name, err := s.group(a)
	if err != nil {
		return err
	}
	return s.src.DeleteGroup(ctx, s.adm, name)
}
