package redact

// ErrorLine is Error with Line's treatment of the text: registered secrets
// and credential-looking values masked, one line, at most max characters.
// errors.Is and errors.As still reach err. nil stays nil.
func ErrorLine(err error, max int) error {
	if err == nil {
		return nil
	}
	s := Line(err.Error(), max)
	if s == err.Error() {
		return err
	}
	return &redacted{msg: s, err: err}
}
