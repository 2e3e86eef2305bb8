package fix

import (
	"errors"
	"fmt"
	"io"

	"github.com/bfaudit/bfaudit/collectors"
	"github.com/bfaudit/bfaudit/collectors/airflow"
	"github.com/bfaudit/bfaudit/collectors/alertmanager"
	"github.com/bfaudit/bfaudit/collectors/bigquery"
	"github.com/bfaudit/bfaudit/collectors/gcpiam"
	"github.com/bfaudit/bfaudit/collectors/kubernetes"
	"github.com/bfaudit/bfaudit/collectors/postgres"
	pubsubcollector "github.com/bfaudit/bfaudit/collectors/pubsub"
	"github.com/bfaudit/bfaudit/collectors/rabbitmq"
)

// Systems builds, for each configured source of a system bfaudit can act
// on, what acts on it, by source name. The systems share the collectors'
// settings (addresses, credentials, TLS). close releases their clients.
func Systems(instances []collectors.Instance) (systems map[string]System, close func() error, err error) {
	systems = map[string]System{}
	var closers []io.Closer
	for _, in := range instances {
		var s System
		var err error
		switch c := in.Collector.(type) {
		case *postgres.Postgres:
			s, err = newPostgres(c)
		case *rabbitmq.RabbitMQ:
			s, err = newRabbitMQ(c)
		case *pubsubcollector.Collector:
			ps := newPubSub(c)
			s = ps
			closers = append(closers, ps)
		case *bigquery.Collector:
			s, err = newBigQuery(c)
		case *gcpiam.Collector:
			s = newIAM(c)
		case *kubernetes.Kubernetes:
			if c.Client != nil {
				s = newKubernetes(c)
			}
		case *alertmanager.Alertmanager:
			s = newAlertmanager(c)
		case *airflow.Airflow:
			// A source that reads saved API answers has nothing to act
			// through.
			if c.ExportDir == "" {
				s = newAirflow(c)
			}
		}
		if err != nil {
			return nil, nil, fmt.Errorf("source %s: %w", in.Name, err)
		}
		if s != nil {
			systems[in.Name] = s
		}
	}
	return systems, func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}, nil
}
