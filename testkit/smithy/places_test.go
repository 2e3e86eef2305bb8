package smithy_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// Each account and region is a fake of its own behind the one endpoint:
// the caller's account with its own key, the others through their roles,
// one role refused and one place broken, each failing alone.
func TestPlaces(t *testing.T) {
	places := smithy.NewPlaces(t, smithy.AWS(t, "glue"), func(account, region string) smithy.Handler {
		return func(c smithy.Call) (map[string]any, *smithy.Error) {
			return map[string]any{"DatabaseList": []any{map[string]any{"Name": "db_" + account + "_" + strings.ReplaceAll(region, "-", "_")}}}, nil
		}
	})
	places.Refuse("333333333333")
	places.Break("222222222222", "us-east-1", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	s := awsconf.Settings{Regions: []string{"eu-west-1"}, Endpoint: places.URL, Accounts: []awsconf.Account{
		{ID: smithy.CallerAccount}, {ID: "222222222222", Role: "bfaudit-read"}, {ID: "333333333333", Role: "bfaudit-read"}}}
	base, err := awsconf.Load(context.Background(), s, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("AKIDBASE", "base-secret", "")),
		config.WithRetryMaxAttempts(1))
	if err != nil {
		t.Fatal(err)
	}
	targets, err := awsconf.Accounts(context.Background(), base, s, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range awsconf.Places(targets, []string{"eu-west-1", "us-east-1"}) {
		out, err := glue.NewFromConfig(p.Config()).GetDatabases(context.Background(), &glue.GetDatabasesInput{})
		switch {
		case err != nil && strings.Contains(err.Error(), "AccessDenied"):
			got = append(got, p.Account+" "+p.Region+": refused")
		case err != nil:
			got = append(got, p.Account+" "+p.Region+": failed")
		default:
			got = append(got, p.Account+" "+p.Region+": "+*out.DatabaseList[0].Name)
		}
	}
	want := []string{
		"111111111111 eu-west-1: db_111111111111_eu_west_1", "111111111111 us-east-1: db_111111111111_us_east_1",
		"222222222222 eu-west-1: db_222222222222_eu_west_1", "222222222222 us-east-1: failed",
		"333333333333 eu-west-1: refused", "333333333333 us-east-1: refused",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if calls := places.Calls("222222222222", "eu-west-1"); !slices.Equal(calls, []string{"GetDatabases"}) {
		t.Errorf("calls in 222222222222/eu-west-1: %v", calls)
	}
}
