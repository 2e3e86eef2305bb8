// Package all imports every collector so it registers; it is the one place
// that lists them.
package all

import (
	_ "github.com/bfaudit/bfaudit/collectors/airflow"
	_ "github.com/bfaudit/bfaudit/collectors/alertmanager"
	_ "github.com/bfaudit/bfaudit/collectors/awsiam"
	_ "github.com/bfaudit/bfaudit/collectors/bigquery"
	_ "github.com/bfaudit/bfaudit/collectors/cloudasset"
	_ "github.com/bfaudit/bfaudit/collectors/datalineage"
	_ "github.com/bfaudit/bfaudit/collectors/dbt"
	_ "github.com/bfaudit/bfaudit/collectors/flagd"
	_ "github.com/bfaudit/bfaudit/collectors/gcpiam"
	_ "github.com/bfaudit/bfaudit/collectors/gcs"
	_ "github.com/bfaudit/bfaudit/collectors/glue"
	_ "github.com/bfaudit/bfaudit/collectors/grafana"
	_ "github.com/bfaudit/bfaudit/collectors/inventory"
	_ "github.com/bfaudit/bfaudit/collectors/kafka"
	_ "github.com/bfaudit/bfaudit/collectors/kubernetes"
	_ "github.com/bfaudit/bfaudit/collectors/notebooks"
	_ "github.com/bfaudit/bfaudit/collectors/postgres"
	_ "github.com/bfaudit/bfaudit/collectors/prometheus"
	_ "github.com/bfaudit/bfaudit/collectors/pubsub"
	_ "github.com/bfaudit/bfaudit/collectors/pushgateway"
	_ "github.com/bfaudit/bfaudit/collectors/rabbitmq"
	_ "github.com/bfaudit/bfaudit/collectors/records"
	_ "github.com/bfaudit/bfaudit/collectors/s3"
	_ "github.com/bfaudit/bfaudit/collectors/scheduler"
	_ "github.com/bfaudit/bfaudit/collectors/sqs"
	_ "github.com/bfaudit/bfaudit/collectors/unleash"
)
