"""What the commands share: console output, exit codes, and the certs and health commands."""
