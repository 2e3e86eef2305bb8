package smithy

// CLIEnv is what points the aws CLI at a fake, to run the commands
// bfaudit prints against it: its endpoint (AWS_ENDPOINT_URL, aws CLI
// 1.29 or 2.13 on), static test keys of the caller's account (no real
// credential is read), no config files, no instance metadata, no pager.
// Append it to os.Environ().
func CLIEnv(url string) []string {
	return []string{"AWS_ENDPOINT_URL=" + url, "AWS_ACCESS_KEY_ID=AKIDCLITEST", "AWS_SECRET_ACCESS_KEY=cli-test-secret",
		"AWS_SESSION_TOKEN=", "AWS_CONFIG_FILE=/nonexistent/bfaudit-test", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent/bfaudit-test",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_DEFAULT_REGION=us-east-1", "AWS_PAGER="}
}
