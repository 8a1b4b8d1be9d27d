"""The tools of the MCP servers granted to this task, as Python functions.

    from posthoc_tools import files
    files.write_file(path='/workspace/notes/todo.txt', content='buy milk')
    help(files.write_file)   # the tool's description and full input schema

Each granted server is an object of this module (a name with '-' is written with '_'); each of its tools
is a function taking keyword arguments. Every call goes through Posthoc's gateway
(POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL): the arguments are checked against the tool's schema, the
person's rules apply, and the call is recorded on the action (and taken back by undo where it can be).

Results come back as Python values: the tool's structured result when it gives one, else its text (one
text: a str, several: a list). A tool that fails raises ToolError with the server's message; a call
Posthoc refused (a tool the person denied, arguments that do not fit the schema, a server not granted)
raises ToolRefused, a ToolError, with the reason.
"""
# Standard modules under private names: a granted server may be called json or os.
import inspect as _inspect
import json as _jsonlib
import keyword as _keyword
import os as _os
import re as _re
import types as _types
import urllib.error as _urlerror
import urllib.parse as _urlparse
import urllib.request as _urlrequest

__all__ = ['ToolError', 'ToolRefused', 'servers']


class ToolError(Exception):
    """A tool call failed: the server's message, or why Posthoc could not make the call."""


class ToolRefused(ToolError):
    """Posthoc refused the call before it reached the server; the message says why and what to do."""


_opener = _urlrequest.build_opener(_urlrequest.ProxyHandler({}))
_listing = None
_servers = {}


def _gateway():
    url = _os.environ.get('POSTHOC_GATEWAY', '').rstrip('/')
    if not url:
        raise ToolError('POSTHOC_GATEWAY is not set: posthoc_tools works only inside a Posthoc sandbox.')
    return url + '/mcp'


def _request(method, path, body=None):
    data = None if body is None else _jsonlib.dumps(body).encode('utf-8')
    req = _urlrequest.Request(_gateway() + path, data=data, method=method,
                                 headers={'content-type': 'application/json', 'accept': 'application/json'})
    try:
        with _opener.open(req) as res:
            return res.status, _parse(res.read())
    except _urlerror.HTTPError as e:
        return e.code, _parse(e.read())
    except _urlerror.URLError as e:
        raise ToolError('The gateway could not be reached: %s' % (e.reason,)) from None


def _parse(raw):
    try:
        return _jsonlib.loads(raw.decode('utf-8')) if raw else None
    except ValueError:
        return {'error': raw.decode('utf-8', 'replace')[:2000]}


def _identifier(name):
    """A Python name for a server or tool name: other characters become '_'."""
    ident = _re.sub(r'\W', '_', name)
    if not ident or ident[0].isdigit() or _keyword.iskeyword(ident):
        ident = '_' + ident
    return ident


def _load():
    global _listing
    if _listing is None:
        status, body = _request('GET', '')
        if status != 200 or not isinstance(body, dict):
            raise ToolError('The gateway did not list the MCP servers (HTTP %s): %s' % (status, (body or {}).get('error', body)))
        _listing = body.get('servers') or []
    return _listing


def _value(answer):
    """The Python value of a tool's answer: structuredContent, else the text of its content."""
    if answer.get('structuredContent') is not None:
        value = answer['structuredContent']
    else:
        parts = []
        for item in answer.get('content') or []:
            if item.get('type') == 'text':
                parts.append(item.get('text', ''))
            elif item.get('type') == 'resource' and 'text' in (item.get('resource') or {}):
                parts.append(item['resource']['text'])
            else:
                parts.append(item)
        value = parts[0] if len(parts) == 1 else parts
    return value


def _error_text(answer):
    texts = [i.get('text', '') for i in answer.get('content') or [] if i.get('type') == 'text']
    return '\n'.join(t for t in texts if t) or 'the tool answered with an error and no message'


def _schema_text(schema):
    lines = []
    props = (schema or {}).get('properties') or {}
    required = set((schema or {}).get('required') or [])
    for name, spec in props.items():
        kind = spec.get('type', 'any') if isinstance(spec, dict) else 'any'
        desc = spec.get('description', '') if isinstance(spec, dict) else ''
        lines.append('    %s (%s%s)%s' % (name, kind if isinstance(kind, str) else '|'.join(kind),
                                         ', required' if name in required else '', ': ' + desc if desc else ''))
    return '\n'.join(lines)


def _tool(server, spec):
    """One tool as a function: keyword arguments, the description and schema as its docstring."""
    qualname = '%s.%s' % (_identifier(server), _identifier(spec['name']))
    schema = spec.get('inputSchema') or {}
    props = schema.get('properties') or {}

    def call(*args, **kwargs):
        if args:
            example = next(iter(props), 'arg')
            raise TypeError('%s takes keyword arguments only, for example %s(%s=...); see help(%s)' % (qualname, qualname, example, qualname))
        path = '/%s/%s' % (_urlparse.quote(server, safe=''), _urlparse.quote(spec['name'], safe=''))
        status, answer = _request('POST', path, kwargs)
        if not isinstance(answer, dict):
            raise ToolError('%s: the gateway answered HTTP %s with no body' % (qualname, status))
        if answer.get('refused'):
            raise ToolRefused(answer.get('error') or 'refused')
        if status != 200:
            raise ToolError(answer.get('error') or 'HTTP %s' % status)
        if answer.get('isError'):
            raise ToolError('%s.%s: %s' % (server, spec['name'], _error_text(answer)))
        return _value(answer)

    notes = []
    if spec.get('rule') == 'deny':
        notes.append('The person denied this tool: a call is refused (ToolRefused).')
    elif spec.get('rule') == 'hold':
        notes.append("Each call waits for the person's approval.")
    if (spec.get('annotations') or {}).get('readOnlyHint'):
        notes.append('Read-only.')
    call.__name__ = _identifier(spec['name'])
    call.__qualname__ = qualname
    call.__module__ = 'posthoc_tools'
    call.__doc__ = '%s\n\n%sArguments:\n%s\n\nInput schema:\n%s' % (
        spec.get('description') or '(no description)', ''.join(n + '\n' for n in notes) + ('\n' if notes else ''),
        _schema_text(schema) or '    (none)', _jsonlib.dumps(schema, indent=2))
    params = [_inspect.Parameter(n, _inspect.Parameter.KEYWORD_ONLY,
                                default=_inspect.Parameter.empty if n in (schema.get('required') or []) else None)
              for n in props if n.isidentifier() and not _keyword.iskeyword(n)]
    params.sort(key=lambda p: p.default is not _inspect.Parameter.empty)
    call.__signature__ = _inspect.Signature(params)
    return call


class _ServerModule(_types.ModuleType):
    """A granted server: its tools are its functions (help() lists them); a missing one is named."""

    def __getattr__(self, attr):
        if attr.startswith('__'):
            raise AttributeError(attr)
        if self._error:
            raise ToolError(self._error)
        raise AttributeError('The MCP server "%s" has no tool %r. Its tools: %s' % (self._server, attr, ', '.join(self.__all__) or 'none'))


def _server(spec):
    name = spec['name']
    tools = {}
    for tool in spec.get('tools') or []:
        tools[_identifier(tool['name'])] = _tool(name, tool)
    listed = '\n'.join('    %s: %s' % (n, (f.__doc__ or '').strip().split('\n')[0][:120]) for n, f in tools.items())
    error = spec.get('error')
    module = _ServerModule('posthoc_tools.' + _identifier(name), 'The MCP server "%s" (%s).\n\n%s' % (
        name, spec.get('transport') or 'unknown', ('Tools:\n' + listed) if listed else (error or 'No tools.')))
    module.__dict__.update(tools)
    module.__all__ = list(tools)
    module._server = name
    module._error = error
    return module


def servers():
    """The names of the MCP servers granted to this task."""
    return [_identifier(s['name']) for s in _load()]


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    if name not in _servers:
        for spec in _load():
            if _identifier(spec['name']) == name or spec['name'] == name:
                _servers[name] = _server(spec)
                break
        else:
            raise ImportError('No MCP server "%s" is granted to this task. Granted: %s. Only the person can grant one.' % (
                name, ', '.join(servers()) or 'none'))
    return _servers[name]


def __dir__():
    return __all__ + (servers() if _listing is not None else [])
