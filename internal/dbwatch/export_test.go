package dbwatch

// SetConnectGap sets the hook run inside Connect between its two steps
// (nil: none).
func SetConnectGap(f func()) { connectGap = f }
