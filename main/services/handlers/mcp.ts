// mcp:* — MCP servers as the person defines them, their tools, rules and sign-in.
import type { McpService } from '../mcp-service';
import type { HandlersOf } from './handlers';

export function mcpHandlers(mcp: McpService): HandlersOf<'mcp:list' | 'mcp:add' | 'mcp:remove' | 'mcp:clear' | 'mcp:signin' | 'mcp:rules' | 'mcp:import'> {
  return {
    'mcp:list': ({ refresh }) => mcp.list(refresh),
    'mcp:add': (input) => mcp.add(input),
    'mcp:remove': ({ name }) => mcp.remove(name),
    'mcp:clear': ({ name }) => mcp.clear(name),
    'mcp:signin': ({ name, wait }) => mcp.signIn(name, wait ?? false),
    'mcp:rules': ({ name, rules }) => mcp.setRules(name, rules),
    'mcp:import': ({ json, only }) => mcp.import(json, only),
  };
}
