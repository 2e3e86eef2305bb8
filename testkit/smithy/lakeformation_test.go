package smithy_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/lakeformation"
	lftypes "github.com/aws/aws-sdk-go-v2/service/lakeformation/types"

	"github.com/bfaudit/bfaudit/internal/awsconf"
	"github.com/bfaudit/bfaudit/testkit/smithy"
)

// Lake Formation's listing and revocation through the SDK: nested
// resources (a table wildcard is an empty structure, columns a wildcard
// with exclusions), enum lists, a timestamp in the body, the page token,
// and an error of the operation's.
func TestLakeFormationPermissions(t *testing.T) {
	updated := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var calls []smithy.Call
	fake := smithy.NewServer(t, smithy.AWS(t, "lakeformation"), func(c smithy.Call) (map[string]any, *smithy.Error) {
		calls = append(calls, c)
		switch c.Operation {
		case "ListPermissions":
			if c.Input["NextToken"] == nil {
				return map[string]any{"NextToken": "2", "PrincipalResourcePermissions": []any{map[string]any{
					"Principal":   map[string]any{"DataLakePrincipalIdentifier": "arn:aws:iam::111111111111:role/bf-1234-replay"},
					"Resource":    map[string]any{"Table": map[string]any{"CatalogId": "111111111111", "DatabaseName": "analytics", "TableWildcard": map[string]any{}}},
					"Permissions": []string{"ALTER", "DROP"}, "PermissionsWithGrantOption": []string{}, "LastUpdated": updated,
				}}}, nil
			}
			return map[string]any{"PrincipalResourcePermissions": []any{map[string]any{
				"Principal": map[string]any{"DataLakePrincipalIdentifier": "arn:aws:iam::111111111111:role/analyst"},
				"Resource": map[string]any{"TableWithColumns": map[string]any{"CatalogId": "111111111111", "DatabaseName": "analytics",
					"Name": "refunds_bf_1234_tmp", "ColumnWildcard": map[string]any{"ExcludedColumnNames": []string{"card"}}}},
				"Permissions": []string{"SELECT"}, "PermissionsWithGrantOption": []string{"SELECT"},
			}}}, nil
		case "RevokePermissions":
			if c.Input["Principal"].(map[string]any)["DataLakePrincipalIdentifier"] == "gone" {
				return nil, &smithy.Error{Code: "EntityNotFoundException", Message: "Entity not found"}
			}
			return nil, nil
		}
		return nil, &smithy.Error{Code: "AccessDenied", Message: "not in this fake", Status: 403}
	})
	client := lakeformation.NewFromConfig(smithy.AWSConfig(fake.URL))
	ctx := context.Background()
	var got []lftypes.PrincipalResourcePermissions
	pager := lakeformation.NewListPermissionsPaginator(client, &lakeformation.ListPermissionsInput{CatalogId: aws.String("111111111111"), MaxResults: aws.Int32(1000)})
	for pager.HasMorePages() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.PrincipalResourcePermissions...)
	}
	if len(got) != 2 || got[0].Resource.Table.TableWildcard == nil || !aws.ToTime(got[0].LastUpdated).Equal(updated) ||
		!slices.Equal(got[0].Permissions, []lftypes.Permission{"ALTER", "DROP"}) ||
		got[1].Resource.TableWithColumns.ColumnWildcard.ExcludedColumnNames[0] != "card" {
		t.Errorf("permissions %+v", got)
	}
	if in := calls[1].Input; in["NextToken"] != "2" || in["CatalogId"] != "111111111111" || in["MaxResults"] != int64(1000) {
		t.Errorf("the second page was asked with %v", in)
	}
	_, err := client.RevokePermissions(ctx, &lakeformation.RevokePermissionsInput{
		Principal:   &lftypes.DataLakePrincipal{DataLakePrincipalIdentifier: aws.String("arn:aws:iam::111111111111:role/bf-1234-replay")},
		Resource:    &lftypes.Resource{Table: &lftypes.TableResource{DatabaseName: aws.String("analytics"), TableWildcard: &lftypes.TableWildcard{}}},
		Permissions: []lftypes.Permission{"ALTER", "DROP"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if in := calls[2].Input; in["Resource"].(map[string]any)["Table"].(map[string]any)["TableWildcard"] == nil {
		t.Errorf("RevokePermissions read %v: the wildcard is lost", in)
	}
	_, err = client.RevokePermissions(ctx, &lakeformation.RevokePermissionsInput{
		Principal:   &lftypes.DataLakePrincipal{DataLakePrincipalIdentifier: aws.String("gone")},
		Resource:    &lftypes.Resource{Database: &lftypes.DatabaseResource{Name: aws.String("analytics")}},
		Permissions: []lftypes.Permission{"ALL"},
	})
	var missing *lftypes.EntityNotFoundException
	if !errors.As(err, &missing) {
		t.Errorf("error %v (%T), want an EntityNotFoundException", err, err)
	}
}

// A second service served in every place beside the first, each told
// apart by its signature; one service of one place broken alone.
func TestPlacesServeTwoServices(t *testing.T) {
	places := smithy.NewPlaces(t, smithy.AWS(t, "glue"), func(account, region string) smithy.Handler {
		return func(c smithy.Call) (map[string]any, *smithy.Error) {
			return map[string]any{"DatabaseList": []any{map[string]any{"Name": "db_" + account}}}, nil
		}
	})
	places.Also(smithy.AWS(t, "lakeformation"), func(account, region string) smithy.Handler {
		return func(c smithy.Call) (map[string]any, *smithy.Error) {
			return map[string]any{"DataLakeSettings": map[string]any{"DataLakeAdmins": []any{map[string]any{
				"DataLakePrincipalIdentifier": "arn:aws:iam::" + account + ":role/admin"}}}}, nil
		}
	})
	places.BreakService("222222222222", "eu-west-1", "lakeformation", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	s := awsconf.Settings{Regions: []string{"eu-west-1"}, Endpoint: places.URL, Accounts: []awsconf.Account{
		{ID: smithy.CallerAccount}, {ID: "222222222222", Role: "bfaudit-read"}}}
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
	for _, p := range awsconf.Places(targets, s.Regions) {
		dbs, err := glue.NewFromConfig(p.Config()).GetDatabases(context.Background(), &glue.GetDatabasesInput{})
		if err != nil {
			t.Fatal(err)
		}
		line := p.Account + ": " + *dbs.DatabaseList[0].Name
		settings, err := lakeformation.NewFromConfig(p.Config()).GetDataLakeSettings(context.Background(), &lakeformation.GetDataLakeSettingsInput{})
		if err != nil {
			line += ", lakeformation failed"
		} else {
			line += ", " + *settings.DataLakeSettings.DataLakeAdmins[0].DataLakePrincipalIdentifier
		}
		got = append(got, line)
	}
	want := []string{"111111111111: db_111111111111, arn:aws:iam::111111111111:role/admin", "222222222222: db_222222222222, lakeformation failed"}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if calls := places.Calls(smithy.CallerAccount, "eu-west-1"); !slices.Equal(calls, []string{"GetDatabases", "GetDataLakeSettings"}) {
		t.Errorf("calls in the caller's account: %v", calls)
	}
}
