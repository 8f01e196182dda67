// Package tools lets the model use tools served over the Model Context
// Protocol. It owns the MCP clients (one per configured server, stdio or
// streamable HTTP), their supervision (a server that exits is started
// again with backoff), the tool catalog (every tool named
// "<server>.<tool>" with the server's own input schema, in a stable
// order) and the authority rules that decide which sender may use which
// tool.
//
// A tool's output is data from outside the chat: Mark frames it so the
// model reads it as such and never as instructions.
package tools
