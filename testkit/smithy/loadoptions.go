package smithy

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// LoadOptions are what an AWS source under test adds to its SDK
// configuration: static credentials (keyID, and a secret and token the
// test uses as canaries), so nothing reaches AWS or instance metadata,
// and the SDK's retries on, three tries with short waits.
func LoadOptions(keyID, secret, token string) []func(*config.LoadOptions) error {
	return []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(keyID, secret, token)),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 3
				o.Backoff = retry.NewExponentialJitterBackoff(20 * time.Millisecond)
			})
		}),
	}
}
