import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);
import{Ia as f,Ja as T,Ka as pe,La as P,Ma as de,Oa as le,Ra as me,Sa as ce,U as se,V as ae,Va as he,Xa as ye,Y as re,a as Y,b as Z,c as v,d as Q,e as _,f as A,g as X,h as I,k as H,l as ee,m as E,n as te,o as oe,p as ne,q as ie}from"./chunk-VU7HDXSO.js";import"./chunk-PYK24VNL.js";import{realpathSync as yt}from"node:fs";import{relative as ut,resolve as w,sep as gt}from"node:path";function ue(e){return{message:H(e.hint?`${e.message}
${e.hint}`:e.message,`	
\r`),properties:{title:e.rule,file:H(e.file,`	
\r`),startLine:e.line,endLine:e.endLine,startColumn:e.column,endColumn:e.endColumn}}}var F=(1n<<64n)-1n,be=37n,L=100,Fe=(()=>{let e=1n;for(let o=0;o<L;o++)e=e*be&F;return e})(),Ge=9,N=10,ge=13,Me=32,We=65535;function fe(e){let o=new Array(L).fill(0),n=new Array(L).fill(-1),i=new Map,a=[],d=0n,s=0,m=0,g=!0,p=!1,r=()=>{let y=d.toString(16),u=(i.get(y)??0)+1;i.set(y,u),a[n[s]-1]=`${y}:${u}`,n[s]=-1},h=y=>{let u=o[s];o[s]=y,d=be*d+BigInt(y)-Fe*BigInt(u)&F,s=(s+1)%L},b=y=>{let u=y;if(u===Me||u===Ge||p&&u===N){p=!1;return}p=u===ge,u===ge&&(u=N),n[s]!==-1&&r(),g&&(g=!1,n[s]=++m),u===N&&(g=!0),h(u)};for(let y=0;y<e.length;y++)b(e.charCodeAt(y));b(We);for(let y=0;y<L;y++)n[s]!==-1&&r(),h(0);return a}var qe=0xcbf29ce484222325n,Je=0x100000001b3n;function ke(e){let o=qe;for(let n of e)for(let i=0;i<=n.length;i++)o^=BigInt(i<n.length?n.charCodeAt(i):0),o=o*Je&F;return o.toString(16).padStart(16,"0")}function we(e){return e.replace(/\b(lines?|columns?)\s+\d+/gi,"$1 N")}function t(e,...o){let n=String.raw({raw:e.raw},...o).replace(/^\n/,"").replace(/\n[ ]*$/,`
`).split(`
`),i=Math.min(...n.filter(a=>a.trim()!=="").map(a=>a.search(/\S/)));return n.map(a=>a.slice(i)).join(`
`)}var x={"yaml-syntax":{why:"A file that is not YAML cannot be read at all: nothing else in it is checked until it parses.",fix:"Correct the YAML at the position shown: usually an indentation, a missing colon, or an unclosed quote or bracket.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
          name: Greet
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        name: Greet
        steps:
          - { id: done, type: end, name: Done }
      `}},"yaml-duplicate-key":{why:"YAML parsers disagree on a repeated key (most keep the last one silently), so the playbook would not mean what one of the two lines says.",fix:"Keep one of the two keys; if both values are needed, the second belongs to another step or mapping.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: done
            type: end
            type: comment
            name: Done
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: done
            type: end
            name: Done
      `}},"yaml-limit":{why:"Deep nesting, alias bombs and very large files can exhaust memory or time before any rule runs; the bot refuses them before walking them.",fix:"Split a large procedure into several playbooks joined by delegate or handoff, keep long text in template files, and write nesting and aliases as plain data.",example:"A file of 2 MiB, a value nested 100 lists deep (`a: [[[[\u2026]]]]`), or an anchor expanded into millions of nodes is reported at line 1; the same procedure split into playbooks under the limits is read normally."},"yaml-encoding":{why:"Playbooks are text: a NUL byte or an invalid UTF-8 sequence means a binary or wrongly encoded file, whose positions and values cannot be trusted.",fix:"Save the file as UTF-8 text (without NUL bytes), or move binary files out of the playbook folders.",example:"A playbook saved as UTF-16 or Latin-1, or an image left in `.github/playbooks/`, is reported at line 1; saved as UTF-8 it is read normally."},"file-refused":{why:"A playbook folder comes from whoever wrote the branch: a link can point at a file outside the checkout or at a device that never ends, and a pipe blocks whoever opens it. The bot reads playbook files as data: regular files inside the folder, up to a size cap, and no link.",fix:"Commit the playbook itself rather than a link to it, keep it inside the repository, and split a file over the cap into several playbooks.",example:"`.github/playbooks/x.yaml` as a link to `/etc/passwd` or `/dev/zero`, a named pipe, or a 50 MiB file is reported at line 1 and nothing of it is read; the same playbook committed as a regular file is read normally."},"dialect-unmapped":{why:"Playbooks written for another system run here as they are; what does not carry over must be said where it is written, not found when a run gets there.",example:{bad:t`
        name: restart-check
        description: Look at the pods.
        owner: Engineer
        inputs:
          - string: namespace
        steps:
          - if: ${"$"}{{ fetch(get('namespace')) }}
            then:
              - ai-prompt:
                  prompt: "Look at the pods."
      `,good:t`
        name: restart-check
        description: Look at the pods.
        owner: Engineer
        inputs:
          - string: namespace
        steps:
          - if: ${"$"}{{ get('namespace').startsWith('prod') }}
            then:
              - ai-prompt:
                  prompt: "Look at the pods."
      `}},"dialect-invalid":{why:"A playbook in another system's format must also pass that system's own validator, or it would be accepted here and refused there.",fix:"Correct the file as that system's validator requires (the message names the rule it breaks).",example:{bad:t`
        id: restart-check
        symptom: pods restart
        entrypoint: look
        nodes:
          look:
            description: ""
            terminal_advice: Done.
      `,good:t`
        id: restart-check
        symptom: pods restart
        entrypoint: look
        nodes:
          look:
            description: Look at the pods.
            terminal_advice: Done.
      `}},"dialect-drift":{why:"Where another system's engine reads a file differently from its own documentation, the bot follows the engine, and says so, so that nobody relies on the documented meaning.",fix:"Remove the field, or write it the way the engine reads it (the hint says how).",example:{bad:t`
        id: restart-check
        symptom: pods restart
        type: general
        entrypoint: look
        nodes:
          look:
            description: Look at the pods.
            terminal_advice: Done.
      `,good:t`
        id: restart-check
        symptom: pods restart
        entrypoint: look
        nodes:
          look:
            description: Look at the pods.
            terminal_advice: Done.
      `}},"schema-unknown-field":{why:"A misspelt field would be ignored and its step would run without it; the format has no free-form fields, so every unknown one is a mistake.",fix:"Correct the field's name (the message suggests the closest one) or remove it.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            bodyy: Hello!
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
      `}},"schema-missing-field":{why:"Without a required field the bot cannot run the playbook or the step (a playbook without an id cannot be named; a comment without a body has nothing to say).",fix:"Add the field the message names.",example:{bad:t`
        apiVersion: playbook-bot/v1
        name: Greet
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        name: Greet
        steps:
          - { id: done, type: end, name: Done }
      `}},"schema-type":{why:"A value of the wrong type (a list where text belongs) would be read as something else at run time, or fail there.",fix:"Write the value as the type the message expects (quote text that YAML would read as a number or a boolean).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        name: [Greet]
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        name: Greet
        steps:
          - { id: done, type: end, name: Done }
      `}},"schema-value":{why:"Fields with a fixed set of values (a status, a mode, a join) mean nothing outside it; a typo would otherwise fall back to a default nobody chose.",fix:"Use one of the values the message lists (it suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done, status: sucess }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done, status: success }
      `}},"schema-format":{why:"Durations, ids, names and numbers with a range are parsed when the run needs them; one that does not have the required form would stop the run there.",fix:"Write the value in the form the message gives (a pattern, a length or a range).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        limits: { timeout: 5 minutes }
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        limits: { timeout: 5m }
        steps:
          - { id: done, type: end, name: Done }
      `}},"schema-step-type":{why:"The step kind decides what a step does and which fields it takes; an unknown kind cannot run.",fix:"Use one of the step kinds the message lists (it suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: coment, name: Say hello, body: Hello! }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello! }
      `}},"schema-api-version":{why:"The `apiVersion` field says which format the file is written in; the bot reads only the versions it knows, so that a future format is never read as this one.",fix:"Write `apiVersion: playbook-bot/v1`.",example:{bad:t`
        apiVersion: playbook-bot/v2
        id: greet
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done }
      `}},"schema-shape":{why:"Some fields take one of several shapes (text or a mapping, a step id or a list of branches); a value of none of them has no meaning.",fix:"Write the value in one of the shapes the message lists.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done, on_error: [retry] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done, on_error: "retry:2" }
      `}},"id-format":{why:"Ids are used in commands (`/run`, `/approve <step>`), templates and branch names: they must be short and safe to write anywhere.",fix:"Use letters, digits, `-` and `_`, starting with a letter or digit, at most 64 characters.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: "greet people"
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet-people
        steps:
          - { id: done, type: end, name: Done }
      `}},"tool-format":{why:"Tools are found by the server that offers them: a name without its server cannot be looked up.",fix:"Write the tool as `server/tool`, e.g. `k8s/get_pods`.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        requires: { tools: [get_pods] }
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        requires: { tools: [k8s/get_pods] }
        steps:
          - { id: done, type: end, name: Done }
      `}},"step-duplicate-id":{why:"Steps are named by id in gotos, templates and commands; two steps with one id would make each of those ambiguous.",fix:"Give one of the steps another id, and update what names it.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello! }
          - { id: hello, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello! }
          - { id: done, type: end, name: Done }
      `}},"steps-and-nodes":{why:"A playbook is either a list of steps that falls through or a graph of nodes with an entrypoint; with both, or neither, there is no one way to run it.",fix:"Keep either `steps:` or `nodes:` (with `entrypoint:`), not both.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done }
        nodes:
          other: { type: end, name: Other }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done }
      `}},"entrypoint-unresolved":{why:"A nodes graph starts at its entrypoint; one that names no node leaves the run nowhere to start.",fix:"Name an existing node in `entrypoint:` (the message suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        entrypoint: strt
        nodes:
          start: { type: end, name: Start }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        entrypoint: start
        nodes:
          start: { type: end, name: Start }
      `}},"goto-unresolved":{why:"A run that follows a `next` or `goto` to a step that does not exist would stop there with an error.",fix:"Name an existing step (the message suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello!, next: finsh }
          - { id: finish, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello!, next: finish }
          - { id: finish, type: end, name: Done }
      `}},"self-loop":{why:"A step that goes to itself repeats its effects at once and without end; retries have their own, bounded, form.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        limits: { max_steps: 5 }
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            next:
              - { when: "issue.number > 1", goto: hello }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            on_error: "retry:2"
          - { id: done, type: end, name: Done }
      `}},"branch-empty":{why:"A branch with an empty `when` or `condition` cannot be decided: the engine has nothing to evaluate and a person nothing to choose.",fix:"Write the branch's condition, or remove the branch.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            next:
              - { when: " ", goto: done }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            next:
              - { when: "issue.number > 1", goto: done }
          - { id: done, type: end, name: Done }
      `}},"branch-mixed":{why:"`when` branches are decided by the engine and `condition` branches by a person with `/choose`; mixed in one step, nobody knows who decides.",fix:"Use only `when` branches or only `condition` branches in one step (a `label` belongs to condition branches).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            next:
              - { when: "issue.number > 1", label: later, goto: done }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: hello
            type: comment
            name: Say hello
            body: Hello!
            next:
              - { when: "issue.number > 1", goto: done }
          - { id: done, type: end, name: Done }
      `}},"branch-duplicate-label":{why:"People pick a prose branch with `/choose <label>`; two branches with one label would make that choice ambiguous.",fix:"Give each condition branch of the step its own label.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: ask
            type: comment
            name: Ask
            body: Which way?
            next:
              - { condition: the service is down, label: down, goto: done }
              - { condition: the service is slow, label: down, goto: done }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - id: ask
            type: comment
            name: Ask
            body: Which way?
            next:
              - { condition: the service is down, label: down, goto: done }
              - { condition: the service is slow, label: slow, goto: done }
          - { id: done, type: end, name: Done }
      `}},"terminal-missing":{why:"A playbook where no reachable step ends the run would loop until its step limit, never concluding.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        limits: { max_steps: 5 }
        steps:
          - { id: ping, type: comment, name: Ping, body: ping, next: pong }
          - { id: pong, type: comment, name: Pong, body: pong, next: ping }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: ping, type: comment, name: Ping, body: ping, next: pong }
          - { id: pong, type: comment, name: Pong, body: pong, next: done }
          - { id: done, type: end, name: Done }
      `}},unreachable:{why:"A step no path leads to never runs: it is dead text, or a missing branch.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello!, next: done }
          - { id: thanks, type: comment, name: Say thanks, body: Thanks! }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: hello, type: comment, name: Say hello, body: Hello! }
          - { id: thanks, type: comment, name: Say thanks, body: Thanks! }
          - { id: done, type: end, name: Done }
      `}},"cycle-without-limit":{why:"A loop in the graph may run for ever; `limits.max_steps` bounds it, so that a run that keeps looping stops with an error instead.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: ask, type: comment, name: Ask, body: Ready? }
          - id: check
            type: comment
            name: Check
            body: Checking.
            next:
              - { when: "issue.number > 1", goto: ask }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        limits: { max_steps: 20 }
        steps:
          - { id: ask, type: comment, name: Ask, body: Ready? }
          - id: check
            type: comment
            name: Check
            body: Checking.
            next:
              - { when: "issue.number > 1", goto: ask }
          - { id: done, type: end, name: Done }
      `}},"handoff-not-terminal":{why:"An end step, and a handoff to another playbook, end this run; anything written after them would never happen.",fix:"Remove `next:` from the end step, or move the handoff to the step where the run ends.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: first, type: end, name: First, next: second }
          - { id: second, type: end, name: Second }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: first, type: end, name: First }
      `}},"delegate-shape":{why:"A delegating step runs another playbook and then resumes this one: in a nodes graph it must say where to resume.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        entrypoint: ask
        nodes:
          ask:
            type: playbook
            name: Look at changes
            playbook: recent-changes
            mode: delegate
            with: { namespace: web }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        entrypoint: ask
        nodes:
          ask:
            type: playbook
            name: Look at changes
            playbook: recent-changes
            mode: delegate
            with: { namespace: web }
            next: done
          done: { type: end, name: Done }
      `}},"rule-shadowed":{why:"Decision rules are tried in order and the first match wins: a rule that matches whenever an earlier one does can never conclude anything.",fix:"Put the more specific rule first, or remove the rule that can never match.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [oom, deploy] }
          - id: decide
            type: decide
            name: Decide
            rules:
              - { id: oom, all: [oom], conclusion: memory }
              - { id: oom-deploy, all: [oom, deploy], conclusion: bad-release }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [oom, deploy] }
          - id: decide
            type: decide
            name: Decide
            rules:
              - { id: oom-deploy, all: [oom, deploy], conclusion: bad-release }
              - { id: oom, all: [oom], conclusion: memory }
          - { id: done, type: end, name: Done }
      `}},"evidence-missing":{why:"With `require_evidence: true` every conclusion must rest on findings, so that people can check it; a rule that names none would conclude on nothing.",fix:"Name the findings the rule rests on (`all:` or `any:`), or drop `require_evidence`.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [row_missing] }
          - id: decide
            type: decide
            name: Decide
            require_evidence: true
            rules:
              - { id: known, all: [row_missing], conclusion: not-saved }
              - { id: guess, conclusion: cache }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [row_missing] }
          - id: decide
            type: decide
            name: Decide
            require_evidence: true
            rules:
              - { id: known, all: [row_missing], conclusion: not-saved }
          - { id: done, type: end, name: Done }
      `}},"finding-unknown":{why:"Findings come from investigate and ai steps that expect them; a finding no step expects is usually a typo, and a branch or rule on it would never match.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [oom_killed] }
          - id: decide
            type: decide
            name: Decide
            rules:
              - { id: oom, all: [oom_kiled], conclusion: memory }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: investigate, name: Look, expected_findings: [oom_killed] }
          - id: decide
            type: decide
            name: Decide
            rules:
              - { id: oom, all: [oom_killed], conclusion: memory }
          - { id: done, type: end, name: Done }
      `}},"checkpoint-target":{why:"A checkpoint goes on to `on_reject` or `on_timeout` when people say no or do not answer; a target that does not exist would stop the run there.",fix:"Name an existing step (the message suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: ok, type: checkpoint, name: Approve, message: Go?, on_reject: stp }
          - { id: go, type: comment, name: Go, body: Going., next: stop }
          - { id: stop, type: end, name: Stop }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: ok, type: checkpoint, name: Approve, message: Go?, on_reject: stop }
          - { id: go, type: comment, name: Go, body: Going., next: stop }
          - { id: stop, type: end, name: Stop }
      `}},"needs-unknown":{why:"A step starts when the steps it needs are done; a need that names no step of its list could never be met.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [buld] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [build] }
      `}},"needs-cycle":{why:"Steps that need each other wait for each other for ever: none of them can start.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: test, type: comment, name: Test, body: Testing., needs: [tag] }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [test] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: test, type: comment, name: Test, body: Testing., needs: [build] }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [test] }
      `}},"needs-unreachable":{why:"A step that waits, directly or not, for steps caught in a cycle can never start, and the run would never finish its list.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: test, type: comment, name: Test, body: Testing., needs: [tag] }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [test] }
          - { id: notes, type: comment, name: Notes, body: Notes., needs: [tag, build] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: build, type: comment, name: Build, body: Building. }
          - { id: test, type: comment, name: Test, body: Testing., needs: [build] }
          - { id: tag, type: comment, name: Tag, body: Tagging., needs: [test] }
          - { id: notes, type: comment, name: Notes, body: Notes., needs: [tag, build] }
      `}},"join-unmet":{why:"A parallel step goes on when its join is met; a join that asks for more branches than the step has could never be met.",fix:"Ask for at most as many branches as the step has (`join: all`, `any` or `{ count: N }`).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            join: { count: 3 }
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting. }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
      `,good:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            join: all
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting. }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
      `}},"goto-out-of-branch":{why:"Branches of a parallel step run side by side and join their step at their end; a goto out of a branch (or into another) would leave the join waiting and run steps twice.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting., next: report }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
          - { id: report, type: comment, name: Report, body: Done. }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting. }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
          - { id: report, type: comment, name: Report, body: Done. }
      `}},"parallel-unsupported":{why:"Ending the run, delegating or handing off from one branch while the others still run has no single meaning; those steps belong after the join.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting. }]
              docs: [{ id: stop, type: end, name: Stop }]
      `,good:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            branches:
              lint: [{ id: lint, type: comment, name: Lint, body: Linting. }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
          - { id: stop, type: end, name: Stop }
      `}},"input-default":{why:"A default is used when nobody gives the input; one that does not fit the input's own type or constraints would fail every run that relies on it.",fix:"Change the default to a value the input accepts, or widen the input's constraints.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          level: { type: enum, values: [patch, minor], default: major }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.level }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          level: { type: enum, values: [patch, minor, major], default: major }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.level }}" }
      `}},"input-shape":{why:"An input whose constraints contradict each other (min above max, values on a number) accepts nothing, or not what it says.",fix:"Make the constraints agree with each other and with the input's type.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: scale
        inputs:
          replicas: { type: number, min: 5, max: 1 }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.replicas }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: scale
        inputs:
          replicas: { type: number, min: 1, max: 5 }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.replicas }}" }
      `}},"regex-invalid":{why:"Patterns run on RE2, whose time is linear in the text: backreferences and lookarounds, which can take exponential time on hostile input, do not compile there.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string, pattern: '^(\w+)\1$' }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.package }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string, pattern: '^[a-z0-9@/._-]+$' }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ inputs.package }}" }
      `}},"template-syntax":{why:"A malformed template (unclosed, or written in another tool's syntax such as GitHub Actions' `${{ }}`) would be posted as written instead of filled in.",fix:"Write templates as `{{ name }}` with the names the format defines; `{% if %}` blocks must be closed.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, body: "Issue ${"${{"} issue.number }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, body: "Issue {{ issue.number }}" }
      `}},"template-unresolved":{why:"A template that names an input, step, output or context variable that does not exist would be empty at run time.",fix:"Name something that exists: a declared input, an output of an earlier step, a finding or a context variable (the message suggests the closest name).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string }
        steps:
          - { id: say, type: comment, name: Say, body: "Bump {{ inputs.pacakge }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string }
        steps:
          - { id: say, type: comment, name: Say, body: "Bump {{ inputs.package }}" }
      `}},"template-order":{why:"An output exists only once its step has run: a template that reads it in a step that can run first would be empty.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: say, type: comment, name: Say, body: "{{ steps.branch.outputs.name }}" }
          - { id: branch, type: branch, description: Make a branch., name: feature/bump }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: branch, type: branch, description: Make a branch., name: feature/bump }
          - { id: say, type: comment, name: Say, body: "{{ steps.branch.outputs.name }}" }
      `}},"output-unsure":{why:"Outputs of a step in another branch, after an `any` join, or outside a step's `needs:` may not exist when the template is filled in.",fix:"Use outputs of steps that always completed before this one: add them to `needs:`, or join on all branches.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            join: any
            branches:
              lint: [{ id: lint, type: branch, description: Make a branch., name: checks/lint }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
          - { id: report, type: comment, name: Report, body: "{{ steps.lint.outputs.name }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: checks
        steps:
          - id: both
            type: parallel
            name: Both checks
            join: all
            branches:
              lint: [{ id: lint, type: branch, description: Make a branch., name: checks/lint }]
              docs: [{ id: docs, type: comment, name: Docs, body: Checking docs. }]
          - { id: report, type: comment, name: Report, body: "{{ steps.lint.outputs.name }}" }
      `}},"item-outside-for-each":{why:"`item` and `item_index` are the current element of a `for_each` step; anywhere else they have no value.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: notify
        inputs:
          services: { type: list }
        steps:
          - { id: say, type: comment, name: Say, body: "{{ item }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: notify
        inputs:
          services: { type: list }
        steps:
          - { id: say, type: comment, name: Say, for_each: "{{ inputs.services }}", body: "{{ item }}" }
      `}},"template-conditional":{why:"A step with an `if` may be skipped, leaving its outputs empty; a template that reads them may show nothing.",fix:"Remove the `if` from the step that makes the output, or keep it if an empty value is what you want there (the rule only warns).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: branch, type: branch, description: Make a branch., name: feature/bump, if: "issue.number > 1" }
          - { id: say, type: comment, name: Say, body: "{{ steps.branch.outputs.name }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: branch, type: branch, description: Make a branch., name: feature/bump }
          - { id: say, type: comment, name: Say, body: "{{ steps.branch.outputs.name }}" }
      `}},"expression-syntax":{why:"`if` and `when` expressions are parsed, never run as code; one that does not parse cannot decide anything.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, if: "issue.number >", body: Hello! }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, if: "issue.number > 1", body: Hello! }
      `}},"file-missing":{why:"Template and prompt files are read when the step runs; one that does not exist would fail the run there.",fix:"Add the file (its path is relative to the playbook file), or correct the path.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: ask, type: ai, name: Ask, prompt_file: prompts/triage.md }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: ask, type: ai, name: Ask, prompt: Summarise the issue. }
      `}},"path-unsafe":{why:"Paths a commit step writes must stay inside the repository and away from `.git/`: an absolute path or `..` could write anywhere the runner can.",fix:"Write a relative, normalised path inside the repository.",tags:["security"],example:{bad:t`
        apiVersion: playbook-bot/v1
        id: notes
        steps:
          - id: save
            type: commit
            name: Save
            branch: notes
            message: Add notes
            files: [{ path: ../notes.md, content: Notes }]
      `,good:t`
        apiVersion: playbook-bot/v1
        id: notes
        steps:
          - id: save
            type: commit
            name: Save
            branch: notes
            message: Add notes
            files: [{ path: docs/notes.md, content: Notes }]
      `}},"ref-invalid":{why:"Branch names become git refs; one git refuses (`..`, spaces, a trailing `.lock`) or one that could be read as an option would fail the step or worse.",fix:"Use a name git accepts: letters, digits, `/`, `-`, `_` and `.`, without `..` or a leading `-`.",tags:["security"],example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: branch, type: branch, description: Make a branch., name: feature..bump }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        steps:
          - { id: branch, type: branch, description: Make a branch., name: feature/bump }
      `}},"step-shape":{why:"Some fields of a step only make sense together (a commit needs something to commit); without them the step cannot do its work.",fix:"Add the fields the message names, or remove the ones that do not fit together.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: notes
        steps:
          - { id: save, type: commit, name: Save, branch: notes, message: Add notes }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: notes
        steps:
          - id: save
            type: commit
            name: Save
            branch: notes
            message: Add notes
            files: [{ path: docs/notes.md, content: Notes }]
      `}},"ai-write-unapproved":{why:"An ai step with write scope lets a model change the repository or call tools that act; a person must approve before it does.",tags:["security"],example:{bad:t`
        apiVersion: playbook-bot/v1
        id: fix
        steps:
          - { id: fix, type: ai, name: Fix, prompt: Fix the failing test., scope: write }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: fix
        steps:
          - { id: ok, type: checkpoint, name: Approve, message: Let the model fix the test? }
          - { id: fix, type: ai, name: Fix, prompt: Fix the failing test., scope: write }
      `}},"ai-tool-scope":{why:"A read-only ai step runs without an approval; a tool that writes or runs commands would let the model act without one.",tags:["security"],example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: ai, name: Look, prompt: Read the logs., tools: [github/file_read, shell/bash] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: look, type: ai, name: Look, prompt: Read the logs., tools: [github/file_read] }
      `}},"verify-unknown":{why:"`verify` names a check registered in the bot's code that the model's answer must pass; an unknown name would fail every run at that step.",fix:"Use a registered check: `non-empty`, `json` or `findings-complete` (the message suggests the closest one).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: sum, type: ai, name: Summarise, prompt: Summarise as JSON., verify: jsonn }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: sum, type: ai, name: Summarise, prompt: Summarise as JSON., verify: json }
      `}},"response-schema":{why:"A checkpoint's `response_schema` checks the `k=v` values people give with `/approve`; a schema that is not an object schema could never accept them.",fix:"Write a JSON Schema of `type: object` whose properties are the values people give.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - { id: ok, type: checkpoint, name: Approve, message: Version?, response_schema: { type: string } }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: release
        steps:
          - id: ok
            type: checkpoint
            name: Approve
            message: Version?
            response_schema: { type: object, properties: { version: { type: string } } }
      `}},"contract-schema":{why:"A step's `input_schema` and `output_schema` are checked on every run; one that is not a valid JSON Schema would fail the step instead of checking it.",fix:"Correct the schema as the message says (it is compiled in strict mode: unknown keywords are errors).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, body: Hello!, output_schema: { type: object, propertys: {} } }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: say, type: comment, name: Say, body: Hello!, output_schema: { type: object, properties: {} } }
      `}},"script-templated":{why:"A script's text reaches the shell as written, so that no value can inject commands; a template in it is never filled in.",fix:"Pass values through `env:` (whose values are templates) and read them as variables in the script.",tags:["security"],example:{bad:t`
        apiVersion: playbook-bot/v1
        id: install
        inputs:
          package: { type: string }
        steps:
          - { id: run, type: script, name: Install, shell: bash, run: "npm install {{ inputs.package }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: install
        inputs:
          package: { type: string }
        steps:
          - id: run
            type: script
            name: Install
            shell: bash
            env: { PACKAGE: "{{ inputs.package }}" }
            run: npm install "$PACKAGE"
      `}},"set-duplicate-id":{why:"Playbooks are found, run and delegated to by id; two playbooks of one set with one id would make each of those ambiguous.",fix:"Give one of the playbooks another id, and update what names it.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet-team
        steps:
          - { id: done, type: end, name: Done }
      `,others:{"greet.yaml":t`
          apiVersion: playbook-bot/v1
          id: greet
          steps:
            - { id: done, type: end, name: Done }
        `}}},"set-locked-id":{why:"The bot relies on its system playbooks (`alert-triage` triages alerts nothing else claims); a repository cannot replace or disable them, so a file with such an id is never used.",fix:"Give the playbook an id of its own; to take alerts before the system playbook, give it `on.alerts`.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: alert-triage
        steps:
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: team-alert-triage
        steps:
          - { id: done, type: end, name: Done }
      `}},"set-unresolved-playbook":{why:"A handoff, delegate or playbook step names the playbook it runs by id; one that no playbook has would stop the run there.",fix:"Name a playbook of the set or of the bundled library (the message suggests the closest id).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: done, type: end, name: Done, handoff: [storag] }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: done, type: end, name: Done, handoff: [storage] }
      `,others:{"storage.yaml":t`
          apiVersion: playbook-bot/v1
          id: storage
          steps:
            - { id: done, type: end, name: Done }
        `}}},"set-delegation-cycle":{why:"Playbooks that delegate to each other in a cycle would nest runs until the depth limit stops them.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: deep
        steps:
          - { id: call, type: playbook, name: Back to triage, playbook: triage, mode: delegate }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: deep
        steps:
          - { id: done, type: end, name: Done }
      `,others:{"triage.yaml":t`
          apiVersion: playbook-bot/v1
          id: triage
          steps:
            - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate }
            - { id: done, type: end, name: Done }
        `}}},"set-depth":{why:"Each delegation nests a run inside another; `limits.max_depth` bounds how deep, and a chain deeper than it would fail when it got there.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        limits: { max_depth: 1 }
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        limits: { max_depth: 2 }
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate }
          - { id: done, type: end, name: Done }
      `,others:{"deep.yaml":t`
          apiVersion: playbook-bot/v1
          id: deep
          steps:
            - { id: call, type: playbook, name: Look deeper still, playbook: deeper, mode: delegate }
            - { id: done, type: end, name: Done }
        `,"deeper.yaml":t`
          apiVersion: playbook-bot/v1
          id: deeper
          steps:
            - { id: done, type: end, name: Done }
        `}}},"set-delegate-terminal":{why:"A delegating step waits for the child playbook to return; a child whose every ending hands off never returns, and the parent would wait for ever.",fix:"Give the child an end that does not hand off, or hand off to it instead of delegating.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: handoff }
      `,others:{"deep.yaml":t`
          apiVersion: playbook-bot/v1
          id: deep
          steps:
            - { id: done, type: end, name: Done, handoff: [storage-investigation] }
        `}}},"set-inputs":{why:"A sub-playbook gets only the inputs it declares: a mapped input it does not declare is lost, and a required one left out fails its run.",fix:"Map only inputs the child declares, and every one it requires (the hint lists them).",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate, with: { namespace: web } }
          - { id: done, type: end, name: Done }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: triage
        steps:
          - { id: call, type: playbook, name: Look deeper, playbook: deep, mode: delegate, with: { ns: web } }
          - { id: done, type: end, name: Done }
      `,others:{"deep.yaml":t`
          apiVersion: playbook-bot/v1
          id: deep
          inputs:
            ns: { type: string }
          steps:
            - { id: say, type: comment, name: Say, body: "{{ inputs.ns }}" }
        `}}},"input-unused":{why:"An input nobody reads still has to be given (or defaulted) by every run: it is left over from an edit, or a template misses it.",fix:"Use the input in a template or expression, or remove it.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string }
          level: { type: string }
        steps:
          - { id: say, type: comment, name: Say, body: "Bump {{ inputs.package }}" }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: bump
        inputs:
          package: { type: string }
        steps:
          - { id: say, type: comment, name: Say, body: "Bump {{ inputs.package }}" }
      `}},"step-no-description":{why:"While a step is current its name or description is what people read in the status comment; an id alone rarely tells them what is happening.",example:{bad:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end }
      `,good:t`
        apiVersion: playbook-bot/v1
        id: greet
        steps:
          - { id: done, type: end, name: Done }
      `}}};function Ke(e){return`${e.replace(/\/+$/,"")}/blob/main/docs/rules.md`}function ve(e,o){return`${Ke(e)}#${o}`}function S(e){let o=/^\S+/.exec(e)?.[0]??"",i=/[A-Z_:.]/.test(o)?e:e.charAt(0).toUpperCase()+e.slice(1);return/[.!?]$/.test(i)?i:`${i}.`}function xe(e){return S(f[e].guidance??x[e].fix??"")}function Se(e){return`${S(f[e].summary)} ${x[e].why}`}function $e(e){let o=f[e].layer,n=x[e].tags??[];return["playbook",o,o==="style"?"maintainability":"correctness",...n.filter(i=>i!=="playbook"&&i!==o)]}function G(e){return e.trimEnd().split(`
`).map(o=>o&&`    ${o}`).join(`
`)}function Ve(e){return Object.entries(e.others??{})}function De(e,o){let n=f[e],i=x[e],a=[`${e} (${n.severity}, ${n.layer} layer)`,"",S(n.summary),"",`Why: ${i.why}`,"",`How to fix: ${xe(e)}`,""];if(typeof i.example=="string")a.push(`Example: ${i.example}`,"");else{let d=Ve(i.example);a.push("Example, reported:","",G(i.example.bad),"");for(let[s,m]of d)a.push(`beside ${s}:`,"",G(m),"");a.push("Fixed:","",G(i.example.good),"")}return o&&a.push(`More: ${o}`,""),a.join(`
`)}function M(e){return["```yaml",e.trimEnd(),"```"].join(`
`)}function Re(e){let o=x[e],n=[S(f[e].summary),`**Why.** ${o.why}`,`**How to fix.** ${xe(e)}`];if(typeof o.example=="string")n.push(`**Example.** ${o.example}`);else{let i=Ve(o.example);n.push(i.length?`**Example.** Reported, beside ${i.map(([a])=>`\`${a}\``).join(" and ")}:`:"**Example.** Reported:",M(o.example.bad));for(let[a,d]of i)n.push(`\`${a}\`:`,M(d));n.push("Fixed:",M(o.example.good))}return n.join(`

`)+`
`}var _e="%SRCROOT%",ze="logicalLocationHash/v1",Ye=/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;function Ze(e){return e.split("/").map(encodeURIComponent).join("/")}function Qe(e,o){let n=o?o.locate(e):e.replace(/\\/g,"/");return n.startsWith("file:")?{uri:n}:{uri:Ze(n),uriBaseId:_e}}function Xe(e,o){let n=f[e],i=o.repositoryUrl?ve(o.repositoryUrl,e):void 0;return{id:e,shortDescription:{text:S(n.summary)},fullDescription:{text:Se(e).slice(0,1024)},...i?{helpUri:i}:{},help:{text:De(e,i),markdown:Re(e)},defaultConfiguration:{level:n.severity},properties:{tags:$e(e),precision:"very-high","problem.severity":n.severity}}}function Ae(e,o){let n=new Map(T.map((m,g)=>[m,g])),i=new Map,a=e.flatMap(m=>{let g,p=r=>{if(!(r.file!==m.file||m.text===""))return g??=fe(m.text),g[r.line-1]};return m.diagnostics.map(r=>{let h=Qe(r.file,o.root),b=ke([r.rule,h.uri,r.path,we(r.message)]),y=(i.get(b)??0)+1;i.set(b,y);let u=p(r);return{ruleId:r.rule,ruleIndex:n.get(r.rule),level:r.severity,message:{text:r.hint?`${r.message}
Hint: ${r.hint}`:r.message},locations:[{physicalLocation:{artifactLocation:h,region:{startLine:r.line,startColumn:r.column,endLine:r.endLine,endColumn:r.endColumn}},...r.path?{logicalLocations:[{fullyQualifiedName:r.path}]}:{}}],partialFingerprints:{...u?{primaryLocationLineHash:u}:{},[ze]:`${b}:${y}`}}})}),d=o.homepage??o.repositoryUrl,s={$schema:"https://json.schemastore.org/sarif-2.1.0.json",version:"2.1.0",runs:[{tool:{driver:{name:"playbook-bot",version:o.version,...Ye.test(o.version)?{semanticVersion:o.version}:{},...d?{informationUri:d}:{},rules:T.map(m=>Xe(m,o))}},...o.root?{originalUriBaseIds:{[_e]:{uri:o.root.uri,description:{text:"The root of the repository the playbooks are in."}}}}:{},columnKind:"utf16CodeUnits",results:a}]};return JSON.stringify(s,null,2)+`
`}import{execFileSync as et}from"node:child_process";import{realpathSync as tt}from"node:fs";import{basename as ot,dirname as Le,isAbsolute as nt,join as it,relative as st,resolve as C,sep as Ce}from"node:path";import{pathToFileURL as Ee}from"node:url";function Pe(e,o){try{let n=et("git",["rev-parse","--show-toplevel"],{cwd:e,encoding:"utf8",stdio:["ignore","pipe","ignore"],timeout:1e4}).trim();if(n)return{dir:n,source:"git"}}catch{}return o.GITHUB_WORKSPACE?{dir:C(o.GITHUB_WORKSPACE),source:"GITHUB_WORKSPACE"}:{dir:C(e),source:"working directory"}}function Te(e){let o=[];for(let n=C(e);;n=Le(n))try{return it(tt(n),...o.reverse())}catch{if(Le(n)===n)return C(e);o.push(ot(n))}}function Oe(e,o){let n=Te(e),i=Ee(n).href;return{uri:i.endsWith("/")?i:`${i}/`,locate(a){let d=Te(C(o,a)),s=st(n,d);return s===""||s===".."||s.startsWith(`..${Ce}`)||nt(s)?Ee(d).href:s.split(Ce).join("/")}}}function at(e){let o=typeof e=="string"?e:typeof e=="object"&&e!==null&&"url"in e?String(e.url):void 0;if(!o)return;let n=/^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(o);if(n)return`https://github.com/${n[1]?.replace(/\.git$/,"")}`;let i=/^(?:git\+)?(?:https?|git|ssh):\/\/(?:[^@/]+@)?([^/]+)\/(.+?)(?:\.git)?\/?$/.exec(o);return i?`https://${i[1]}/${i[2]}`:void 0}function Ue(){let e=de();if(!e)return{version:"0.0.0"};let o=at(e.repository);return{version:e.version??"0.0.0",...o?{repositoryUrl:o}:{},...e.homepage?{homepage:e.homepage}:{}}}import{execFileSync as rt}from"node:child_process";import{existsSync as pt,readFileSync as dt}from"node:fs";var W=100,je=3e3,$=class extends Error{};function lt(e){let o=e.GITHUB_EVENT_PATH;if(!(!o||!pt(o)))try{return JSON.parse(dt(o,"utf8"))}catch{return}}async function mt(e,o,n,i){let a=(e.env.GITHUB_API_URL??"https://api.github.com").replace(/\/+$/,""),d=new Set,s=0,m=ye({fetch:e.fetch});for(let g=1;g<=je/W;g++){let p;try{p=await m(`${a}/repos/${o}/pulls/${n}/files?per_page=${W}&page=${g}`,{headers:{authorization:`Bearer ${e.token}`,accept:"application/vnd.github+json","x-github-api-version":"2022-11-28"},signal:AbortSignal.timeout(3e4)})}catch(h){throw new $(h instanceof Error?h.message:String(h))}if(!p.ok)throw new $(`HTTP ${p.status}`);let r=await p.json().catch(()=>{});if(!Array.isArray(r))throw new $("the answer is not a list of files");for(let h of r)typeof h?.filename=="string"&&(s++,h.status!=="removed"&&d.add(h.filename));if(r.length<W)return d}if(i===void 0||i>s)throw new $(`it lists at most ${je} files`);return d}function ct(e,o,n){if(!(typeof o!="string"||typeof n!="string")&&!(!/^[0-9a-f]{7,64}$/i.test(o)||!/^[0-9a-f]{7,64}$/i.test(n)))try{let i=rt("git",["diff","--name-only","-z","--diff-filter=d",`${o}...${n}`],{cwd:e,encoding:"utf8",stdio:["ignore","pipe","ignore"],timeout:6e4});return new Set(i.split("\0").filter(Boolean))}catch{return}}async function Be(e){let o=lt(e.env),n=o?.pull_request;if(!o||!n)return{pullRequest:!1};let i=Number(n.number??o.number),a=typeof o.repository?.full_name=="string"?o.repository.full_name:e.env.GITHUB_REPOSITORY,d=typeof n.changed_files=="number"?n.changed_files:void 0,s;if(!e.token)s="the token input is empty";else if(!a||!/^[\w.-]+\/[\w.-]+$/.test(a)||!Number.isSafeInteger(i)||i<1)s="the event does not name the pull request and its repository";else try{return{pullRequest:!0,files:await mt(e,a,i,d)}}catch(g){s=g.message}let m=ct(e.workspace,n.base?.sha,n.head?.sha);return e.warn(`changed-only: the GitHub API did not list the pull request's files (${s}); ${m?"comparing its base and head commits with git instead.":"git cannot compare its base and head commits either (a shallow checkout lacks the base: fetch-depth: 0 brings it), so every file is annotated."}`),m?{pullRequest:!0,files:m}:{pullRequest:!0}}var U=10,O=50,Ie=[".github/playbooks/**","playbooks/**"];function bt(e,o,n){let i=s=>{try{return yt(s)}catch{return w(s)}},a=i(o),d=i(n);return new Set([...e].map(s=>ut(d,w(a,s)).split(gt).join("/")))}function j(e){return e.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu," ").replace(/[\\`*_~[\]<>&|$]/g,o=>`\\${o}`).replace(/(@|:(?=\/\/)|\bwww(?=\.))/gi,"$1\u200B")}function q(e){let o=e.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu," ").replace(/\|/g,"\\|"),n=Math.max(0,...(o.match(/`+/g)??[]).map(d=>d.length)),i="`".repeat(n+1),a=/^[` ]|[` ]$/.test(o)?" ":"";return`${i}${a}${o}${a}${i}`}function ft(e){return e.replace(/[&<>"'@]/g,o=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;","@":"@\u200B"})[o]??o)}function kt(e){return encodeURIComponent(e).replace(/[!'()*]/g,o=>`%${o.charCodeAt(0).toString(16).toUpperCase()}`)}function wt(e,o){let n=e.GITHUB_SERVER_URL??"https://github.com",i=e.GITHUB_REPOSITORY,a=e.GITHUB_SHA,d=`${o.file}:${o.line}:${o.column}`;return!i||!a?q(d):`[${j(d)}](${n}/${i}/blob/${a}/${o.file.split("/").map(kt).join("/")}#L${o.line}${o.endLine!==o.line?`-L${o.endLine}`:""})`}function vt(e,o,n,i){let{errors:a,warnings:d}=P(e),s=[];s.push(`### ${a>0?"\u274C":"\u2705"} Playbooks: ${e.length} checked, ${a} ${a===1?"error":"errors"}, ${d} ${d===1?"warning":"warnings"}`,""),s.push("| playbook | file | steps | result |","|---|---|---:|---|");for(let p of e){let r=p.diagnostics.filter(y=>y.severity==="error").length,h=p.diagnostics.length-r,b=p.playbook?new re(p.playbook).steps.length:0;s.push(`| ${p.playbook?.id?j(p.playbook.id):"\u2014"} | ${q(p.file)} | ${b||"\u2014"} | ${r?`\u274C ${r} error${r===1?"":"s"}`:"\u2705 valid"}${h?`, ${h} warning${h===1?"":"s"}`:""} |`)}let m=e.flatMap(p=>p.diagnostics).sort(E);if(m.length){s.push("","#### Diagnostics",""),n>0&&s.push(`_${n} of ${m.length} are not shown as annotations on the diff (GitHub shows at most ${U} of a kind per step); all are listed here._`,""),s.push("| where | rule | message |","|---|---|---|");for(let p of m)s.push(`| ${wt(i,p)} | ${p.severity==="error"?"\u274C":"\u26A0\uFE0F"} ${q(p.rule)} | ${j(p.message)}${p.hint?` \u2014 _${j(p.hint)}_`:""} |`)}let g=e.filter(p=>p.playbook&&(!o||o.has(p.file)));for(let p of g.slice(0,20))s.push("",`<details><summary>Graph of <code>${ft(p.playbook?.id??"")}</code></summary>`,"","```mermaid",he(p.playbook).trimEnd(),"```","","</details>");return s.join(`
`)+`
`}function He(e,o){let n=i=>o?o.has(i.file)?0:1:0;return[...e].sort((i,a)=>i.severity===a.severity?n(i)-n(a)||E(i,a):i.severity==="error"?-1:1)}async function xt(e,o,n,i,a,d){let s=e.GITHUB_API_URL??"https://api.github.com",m=e.GITHUB_REPOSITORY,g=e.GITHUB_SHA;if(!m||!g)return;let p={authorization:`Bearer ${o}`,accept:"application/vnd.github+json","content-type":"application/json"},r=n.map(c=>({path:c.file,start_line:c.line,end_line:c.endLine,...c.line===c.endLine?{start_column:c.column,end_column:c.endColumn}:{},annotation_level:c.severity==="error"?"failure":"warning",message:c.hint?`${c.message}
${c.hint}`:c.message,title:c.rule})),h=n.some(c=>c.severity==="error")?"failure":"success",b=c=>({title:`${n.length} playbook diagnostics`,summary:i.slice(0,65e3),annotations:c}),y=r.slice(0,O),u=await a(`${s}/repos/${m}/check-runs`,{method:"POST",headers:p,body:JSON.stringify({name:"Playbooks",head_sha:g,status:"completed",conclusion:h,output:b(y)})});if(!u.ok){d(`Could not publish a check run (HTTP ${u.status}); annotations above still apply.`);return}let{id:V}=await u.json();for(let c=O;c<r.length;c+=O)await a(`${s}/repos/${m}/check-runs/${V}`,{method:"PATCH",headers:p,body:JSON.stringify({output:b(r.slice(c,c+O))})});d(`Published check run ${V} with ${r.length} annotations.`)}async function Ne(e){let o=l=>e.log(ee(l)),n=Q("paths").filter(Boolean),i=v("fail-on")||"error";if(i!=="error"&&i!=="warning")return A(`fail-on must be 'error' or 'warning', not '${i}'`),1;let a=(v("changed-only")||"false").toLowerCase()==="true",d=(await ne(e.workspace,n.length?n:Ie,{ignore:le})).filter(l=>se(l,()=>te(w(e.workspace,l),{root:e.workspace})??"")).sort(),s=pe(d.map(l=>({file:l,source:oe(w(e.workspace,l),{root:e.workspace})})),{fileExists:(l,k)=>me(w(e.workspace,l),k,e.workspace),siblings:l=>ae(w(e.workspace,l),e.workspace),known:await ce()}),m=v("token");m&&Z(m);let g,p=()=>g??=Pe(e.workspace,e.env),r=a?await Be({env:e.env,workspace:e.workspace,token:m,fetch:e.fetch??fetch,warn:l=>I(l)}):void 0,h=r?.files&&bt(r.files,p().dir,e.workspace);r&&!r.pullRequest&&o("changed-only: the workflow does not run for a pull request; annotating every file.");let b=s.flatMap(l=>l.diagnostics),y=h?b.filter(l=>h.has(l.file)):b,u=He(y,h),V=[...u.filter(l=>l.severity==="error").slice(0,U),...u.filter(l=>l.severity==="warning").slice(0,U)];for(let l of V){let{message:k,properties:z}=ue(l);l.severity==="error"?X(k,z):I(k,z)}let c=b.length-V.length;c>0&&o(`${c} of ${b.length} diagnostics are not annotated (GitHub shows at most ${U} of a kind per step); the job summary lists all of them.`);for(let l of b.sort(E))o(`${l.file}:${l.line}:${l.column}: ${l.severity}: ${l.message} [${l.rule}]`);let K=vt(s,h,c,e.env);e.env.GITHUB_STEP_SUMMARY&&await Y.addRaw(K).write();let{errors:D,warnings:R}=P(s);_("files",String(s.length)),_("errors",String(D)),_("warnings",String(R));let B=v("sarif-file");if(B){let l=w(e.workspace,B),{dir:k}=p();ie(l,Ae(s,{...Ue(),root:Oe(k,e.workspace)}),e.workspace),_("sarif-file",l),o(`Wrote SARIF for ${b.length} diagnostics to ${B} (paths from ${k}).`)}return m&&(v("checks")||"false").toLowerCase()==="true"&&await xt(e.env,m,He(b,h),K,e.fetch??fetch,o),d.length===0&&o(`No playbook files matched ${(n.length?n:Ie).join(", ")}.`),D>0||i==="warning"&&R>0?(A(`${D} ${D===1?"error":"errors"} and ${R} ${R===1?"warning":"warnings"} in ${s.length} playbook ${s.length===1?"file":"files"}`),1):(o(`${s.length} playbook ${s.length===1?"file":"files"} checked: ${D} errors, ${R} warnings.`),0)}var J=(process.env.INPUT_MODE??"").trim()||"validate";if(J==="bot"){let{runBot:e}=await import("./bot-VPNNMQJB.js");process.exitCode=await e({env:process.env,log:o=>process.stdout.write(`${o}
`)})}else J==="validate"?process.exitCode=await Ne({workspace:process.env.GITHUB_WORKSPACE??process.cwd(),env:process.env,log:e=>process.stdout.write(`${e}
`)}):(A(`mode must be validate or bot, not ${JSON.stringify(J)}`),process.exitCode=1);
