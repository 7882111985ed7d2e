"""Generated protocol code; edit the .proto files and run `make proto`."""
