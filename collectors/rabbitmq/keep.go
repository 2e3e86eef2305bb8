package rabbitmq

import "github.com/bfaudit/bfaudit/model"

// Keep arguments: x-bfaudit-keep-until and x-bfaudit-keep-reason on a queue
// or exchange. Arguments are fixed when the object is declared (a
// redeclaration with other arguments fails with PRECONDITION_FAILED), and
// policies accept only the keys RabbitMQ knows, so a keep label can only
// be written by whoever declares the object, at declare time; to change
// it, the object is deleted and declared again. An AMQP string argument
// holds spaces, so the reason is read as written. RabbitMQ records no
// author of an argument, so keep_by stays empty.
const (
	KeepUntilArgument  = "x-" + model.KeepUntilKey
	KeepReasonArgument = "x-" + model.KeepReasonKey
)

// keepFromArguments reads the keep arguments from argumentLabels' map.
func keepFromArguments(a *model.Artifact, labels map[string]string) {
	a.SetKeep(labels[KeepUntilArgument], labels[KeepReasonArgument], "")
}
