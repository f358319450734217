import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);
import{Ga as k,Ha as P,Ia as re,Ja as O,Ka as pe,Ma as de,Pa as le,Qa as me,S as ie,T as se,Ta as ce,Va as he,W as ae,a as Y,b as Z,c as x,d as Q,e as A,f as L,g as X,h as H,k as ee,l as T,m as te,n as oe,o as ne}from"./chunk-4XV6Z6XB.js";import{a as s}from"./chunk-7SIVIR5D.js";import{mkdirSync as ht,realpathSync as yt,writeFileSync as ut}from"node:fs";import{dirname as gt,relative as bt,resolve as v,sep as ft}from"node:path";function ye(e){return{message:e.hint?`${e.message}
${e.hint}`:e.message,properties:{title:e.rule,file:e.file,startLine:e.line,endLine:e.endLine,startColumn:e.column,endColumn:e.endColumn}}}s(ye,"annotation");var F=(1n<<64n)-1n,ge=37n,C=100,Ne=(()=>{let e=1n;for(let o=0;o<C;o++)e=e*ge&F;return e})(),Fe=9,N=10,ue=13,Ge=32,Me=65535;function be(e){let o=new Array(C).fill(0),n=new Array(C).fill(-1),i=new Map,r=[],l=0n,a=0,c=0,b=!0,d=!1,p=s(()=>{let u=l.toString(16),g=(i.get(u)??0)+1;i.set(u,g),r[n[a]-1]=`${u}:${g}`,n[a]=-1},"emit"),y=s(u=>{let g=o[a];o[a]=u,l=ge*l+BigInt(u)-Ne*BigInt(g)&F,a=(a+1)%C},"push"),f=s(u=>{let g=u;if(g===Ge||g===Fe||d&&g===N){d=!1;return}d=g===ue,g===ue&&(g=N),n[a]!==-1&&p(),b&&(b=!1,n[a]=++c),g===N&&(b=!0),y(g)},"read");for(let u=0;u<e.length;u++)f(e.charCodeAt(u));f(Me);for(let u=0;u<C;u++)n[a]!==-1&&p(),y(0);return r}s(be,"lineHashes");var We=0xcbf29ce484222325n,qe=0x100000001b3n;function fe(e){let o=We;for(let n of e)for(let i=0;i<=n.length;i++)o^=BigInt(i<n.length?n.charCodeAt(i):0),o=o*qe&F;return o.toString(16).padStart(16,"0")}s(fe,"digest");function ke(e){return e.replace(/\b(lines?|columns?)\s+\d+/gi,"$1 N")}s(ke,"withoutPositions");function t(e,...o){let n=String.raw({raw:e.raw},...o).replace(/^\n/,"").replace(/\n[ ]*$/,`
`).split(`
`),i=Math.min(...n.filter(r=>r.trim()!=="").map(r=>r.search(/\S/)));return n.map(r=>r.slice(i)).join(`
`)}s(t,"file");var S={"yaml-syntax":{why:"A file that is not YAML cannot be read at all: nothing else in it is checked until it parses.",fix:"Correct the YAML at the position shown: usually an indentation, a missing colon, or an unclosed quote or bracket.",example:{bad:t`
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
      `}}};function Je(e){return`${e.replace(/\/+$/,"")}/blob/main/docs/rules.md`}s(Je,"rulesPageUrl");function we(e,o){return`${Je(e)}#${o}`}s(we,"ruleUrl");function $(e){let o=/^\S+/.exec(e)?.[0]??"",i=/[A-Z_:.]/.test(o)?e:e.charAt(0).toUpperCase()+e.slice(1);return/[.!?]$/.test(i)?i:`${i}.`}s($,"sentence");function ve(e){return $(k[e].guidance??S[e].fix??"")}s(ve,"ruleFix");function xe(e){return`${$(k[e].summary)} ${S[e].why}`}s(xe,"ruleDescription");function Se(e){let o=k[e].layer,n=S[e].tags??[];return["playbook",o,o==="style"?"maintainability":"correctness",...n.filter(i=>i!=="playbook"&&i!==o)]}s(Se,"ruleTags");function G(e){return e.trimEnd().split(`
`).map(o=>o&&`    ${o}`).join(`
`)}s(G,"indent");function $e(e){return Object.entries(e.others??{})}s($e,"othersOf");function Ve(e,o){let n=k[e],i=S[e],r=[`${e} (${n.severity}, ${n.layer} layer)`,"",$(n.summary),"",`Why: ${i.why}`,"",`How to fix: ${ve(e)}`,""];if(typeof i.example=="string")r.push(`Example: ${i.example}`,"");else{let l=$e(i.example);r.push("Example, reported:","",G(i.example.bad),"");for(let[a,c]of l)r.push(`beside ${a}:`,"",G(c),"");r.push("Fixed:","",G(i.example.good),"")}return o&&r.push(`More: ${o}`,""),r.join(`
`)}s(Ve,"ruleHelpText");function M(e){return["```yaml",e.trimEnd(),"```"].join(`
`)}s(M,"yamlBlock");function De(e){let o=S[e],n=[$(k[e].summary),`**Why.** ${o.why}`,`**How to fix.** ${ve(e)}`];if(typeof o.example=="string")n.push(`**Example.** ${o.example}`);else{let i=$e(o.example);n.push(i.length?`**Example.** Reported, beside ${i.map(([r])=>`\`${r}\``).join(" and ")}:`:"**Example.** Reported:",M(o.example.bad));for(let[r,l]of i)n.push(`\`${r}\`:`,M(l));n.push("Fixed:",M(o.example.good))}return n.join(`

`)+`
`}s(De,"ruleHelpMarkdown");var _e="%SRCROOT%",Ke="logicalLocationHash/v1",ze=/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;function Ye(e){return e.split("/").map(encodeURIComponent).join("/")}s(Ye,"pathUri");function Ze(e,o){let n=o?o.locate(e):e.replace(/\\/g,"/");return n.startsWith("file:")?{uri:n}:{uri:Ye(n),uriBaseId:_e}}s(Ze,"artifactLocation");function Qe(e,o){let n=k[e],i=o.repositoryUrl?we(o.repositoryUrl,e):void 0;return{id:e,shortDescription:{text:$(n.summary)},fullDescription:{text:xe(e).slice(0,1024)},...i?{helpUri:i}:{},help:{text:Ve(e,i),markdown:De(e)},defaultConfiguration:{level:n.severity},properties:{tags:Se(e),precision:"very-high","problem.severity":n.severity}}}s(Qe,"reportingDescriptor");function Re(e,o){let n=new Map(P.map((c,b)=>[c,b])),i=new Map,r=e.flatMap(c=>{let b,d=s(p=>{if(!(p.file!==c.file||c.text===""))return b??=be(c.text),b[p.line-1]},"lineHash");return c.diagnostics.map(p=>{let y=Ze(p.file,o.root),f=fe([p.rule,y.uri,p.path,ke(p.message)]),u=(i.get(f)??0)+1;i.set(f,u);let g=d(p);return{ruleId:p.rule,ruleIndex:n.get(p.rule),level:p.severity,message:{text:p.hint?`${p.message}
Hint: ${p.hint}`:p.message},locations:[{physicalLocation:{artifactLocation:y,region:{startLine:p.line,startColumn:p.column,endLine:p.endLine,endColumn:p.endColumn}},...p.path?{logicalLocations:[{fullyQualifiedName:p.path}]}:{}}],partialFingerprints:{...g?{primaryLocationLineHash:g}:{},[Ke]:`${f}:${u}`}}})}),l=o.homepage??o.repositoryUrl,a={$schema:"https://json.schemastore.org/sarif-2.1.0.json",version:"2.1.0",runs:[{tool:{driver:{name:"playbook-bot",version:o.version,...ze.test(o.version)?{semanticVersion:o.version}:{},...l?{informationUri:l}:{},rules:P.map(c=>Qe(c,o))}},...o.root?{originalUriBaseIds:{[_e]:{uri:o.root.uri,description:{text:"The root of the repository the playbooks are in."}}}}:{},columnKind:"utf16CodeUnits",results:r}]};return JSON.stringify(a,null,2)+`
`}s(Re,"formatSarif");import{execFileSync as Xe}from"node:child_process";import{realpathSync as et}from"node:fs";import{basename as tt,dirname as Ae,isAbsolute as ot,join as nt,relative as it,resolve as E,sep as Le}from"node:path";import{pathToFileURL as Ce}from"node:url";function Te(e,o){try{let n=Xe("git",["rev-parse","--show-toplevel"],{cwd:e,encoding:"utf8",stdio:["ignore","pipe","ignore"],timeout:1e4}).trim();if(n)return{dir:n,source:"git"}}catch{}return o.GITHUB_WORKSPACE?{dir:E(o.GITHUB_WORKSPACE),source:"GITHUB_WORKSPACE"}:{dir:E(e),source:"working directory"}}s(Te,"findRepositoryRoot");function Ee(e){let o=[];for(let n=E(e);;n=Ae(n))try{return nt(et(n),...o.reverse())}catch{if(Ae(n)===n)return E(e);o.push(tt(n))}}s(Ee,"real");function Pe(e,o){let n=Ee(e),i=Ce(n).href;return{uri:i.endsWith("/")?i:`${i}/`,locate(r){let l=Ee(E(o,r)),a=it(n,l);return a===""||a===".."||a.startsWith(`..${Le}`)||ot(a)?Ce(l).href:a.split(Le).join("/")}}}s(Pe,"sarifRoot");function st(e){let o=typeof e=="string"?e:typeof e=="object"&&e!==null&&"url"in e?String(e.url):void 0;if(!o)return;let n=/^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(o);if(n)return`https://github.com/${n[1]?.replace(/\.git$/,"")}`;let i=/^(?:git\+)?(?:https?|git|ssh):\/\/(?:[^@/]+@)?([^/]+)\/(.+?)(?:\.git)?\/?$/.exec(o);return i?`https://${i[1]}/${i[2]}`:void 0}s(st,"repositoryUrlOf");function Oe(){let e=pe();if(!e)return{version:"0.0.0"};let o=st(e.repository);return{version:e.version??"0.0.0",...o?{repositoryUrl:o}:{},...e.homepage?{homepage:e.homepage}:{}}}s(Oe,"toolInfo");import{execFileSync as at}from"node:child_process";import{existsSync as rt,readFileSync as pt}from"node:fs";var W=100,Ue=3e3,V=class extends Error{static{s(this,"Unavailable")}};function dt(e){let o=e.GITHUB_EVENT_PATH;if(!(!o||!rt(o)))try{return JSON.parse(pt(o,"utf8"))}catch{return}}s(dt,"readEvent");async function lt(e,o,n,i){let r=(e.env.GITHUB_API_URL??"https://api.github.com").replace(/\/+$/,""),l=new Set,a=0,c=he({fetch:e.fetch});for(let b=1;b<=Ue/W;b++){let d;try{d=await c(`${r}/repos/${o}/pulls/${n}/files?per_page=${W}&page=${b}`,{headers:{authorization:`Bearer ${e.token}`,accept:"application/vnd.github+json","x-github-api-version":"2022-11-28"},signal:AbortSignal.timeout(3e4)})}catch(y){throw new V(y instanceof Error?y.message:String(y))}if(!d.ok)throw new V(`HTTP ${d.status}`);let p=await d.json().catch(()=>{});if(!Array.isArray(p))throw new V("the answer is not a list of files");for(let y of p)typeof y?.filename=="string"&&(a++,y.status!=="removed"&&l.add(y.filename));if(p.length<W)return l}if(i===void 0||i>a)throw new V(`it lists at most ${Ue} files`);return l}s(lt,"listedFiles");function mt(e,o,n){if(!(typeof o!="string"||typeof n!="string")&&!(!/^[0-9a-f]{7,64}$/i.test(o)||!/^[0-9a-f]{7,64}$/i.test(n)))try{let i=at("git",["diff","--name-only","-z","--diff-filter=d",`${o}...${n}`],{cwd:e,encoding:"utf8",stdio:["ignore","pipe","ignore"],timeout:6e4});return new Set(i.split("\0").filter(Boolean))}catch{return}}s(mt,"diffedFiles");async function je(e){let o=dt(e.env),n=o?.pull_request;if(!o||!n)return{pullRequest:!1};let i=Number(n.number??o.number),r=typeof o.repository?.full_name=="string"?o.repository.full_name:e.env.GITHUB_REPOSITORY,l=typeof n.changed_files=="number"?n.changed_files:void 0,a;if(!e.token)a="the token input is empty";else if(!r||!/^[\w.-]+\/[\w.-]+$/.test(r)||!Number.isSafeInteger(i)||i<1)a="the event does not name the pull request and its repository";else try{return{pullRequest:!0,files:await lt(e,r,i,l)}}catch(b){a=b.message}let c=mt(e.workspace,n.base?.sha,n.head?.sha);return e.warn(`changed-only: the GitHub API did not list the pull request's files (${a}); ${c?"comparing its base and head commits with git instead.":"git cannot compare its base and head commits either (a shallow checkout lacks the base: fetch-depth: 0 brings it), so every file is annotated."}`),c?{pullRequest:!0,files:c}:{pullRequest:!0}}s(je,"changedFiles");var j=10,U=50,Be=[".github/playbooks/**","playbooks/**"];function kt(e,o,n){let i=s(a=>{try{return yt(a)}catch{return v(a)}},"real"),r=i(o),l=i(n);return new Set([...e].map(a=>bt(l,v(r,a)).split(ft).join("/")))}s(kt,"inWorkspace");function B(e){return e.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu," ").replace(/[\\`*_~[\]<>&|$]/g,o=>`\\${o}`).replace(/(@|:(?=\/\/)|\bwww(?=\.))/gi,"$1\u200B")}s(B,"mdText");function q(e){let o=e.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu," ").replace(/\|/g,"\\|"),n=Math.max(0,...(o.match(/`+/g)??[]).map(l=>l.length)),i="`".repeat(n+1),r=/^[` ]|[` ]$/.test(o)?" ":"";return`${i}${r}${o}${r}${i}`}s(q,"mdCode");function wt(e){return e.replace(/[&<>"'@]/g,o=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;","@":"@\u200B"})[o]??o)}s(wt,"htmlText");function vt(e){return encodeURIComponent(e).replace(/[!'()*]/g,o=>`%${o.charCodeAt(0).toString(16).toUpperCase()}`)}s(vt,"urlSegment");function xt(e,o){let n=e.GITHUB_SERVER_URL??"https://github.com",i=e.GITHUB_REPOSITORY,r=e.GITHUB_SHA,l=`${o.file}:${o.line}:${o.column}`;return!i||!r?q(l):`[${B(l)}](${n}/${i}/blob/${r}/${o.file.split("/").map(vt).join("/")}#L${o.line}${o.endLine!==o.line?`-L${o.endLine}`:""})`}s(xt,"lineLink");function St(e,o,n,i){let{errors:r,warnings:l}=O(e),a=[];a.push(`### ${r>0?"\u274C":"\u2705"} Playbooks: ${e.length} checked, ${r} ${r===1?"error":"errors"}, ${l} ${l===1?"warning":"warnings"}`,""),a.push("| playbook | file | steps | result |","|---|---|---:|---|");for(let d of e){let p=d.diagnostics.filter(u=>u.severity==="error").length,y=d.diagnostics.length-p,f=d.playbook?new ae(d.playbook).steps.length:0;a.push(`| ${d.playbook?.id?B(d.playbook.id):"\u2014"} | ${q(d.file)} | ${f||"\u2014"} | ${p?`\u274C ${p} error${p===1?"":"s"}`:"\u2705 valid"}${y?`, ${y} warning${y===1?"":"s"}`:""} |`)}let c=e.flatMap(d=>d.diagnostics).sort(T);if(c.length){a.push("","#### Diagnostics",""),n>0&&a.push(`_${n} of ${c.length} are not shown as annotations on the diff (GitHub shows at most ${j} of a kind per step); all are listed here._`,""),a.push("| where | rule | message |","|---|---|---|");for(let d of c)a.push(`| ${xt(i,d)} | ${d.severity==="error"?"\u274C":"\u26A0\uFE0F"} ${q(d.rule)} | ${B(d.message)}${d.hint?` \u2014 _${B(d.hint)}_`:""} |`)}let b=e.filter(d=>d.playbook&&(!o||o.has(d.file)));for(let d of b.slice(0,20))a.push("",`<details><summary>Graph of <code>${wt(d.playbook?.id??"")}</code></summary>`,"","```mermaid",ce(d.playbook).trimEnd(),"```","","</details>");return a.join(`
`)+`
`}s(St,"summaryMarkdown");function Ie(e,o){let n=s(i=>o?o.has(i.file)?0:1:0,"inChanged");return[...e].sort((i,r)=>i.severity===r.severity?n(i)-n(r)||T(i,r):i.severity==="error"?-1:1)}s(Ie,"annotationOrder");async function $t(e,o,n,i,r,l){let a=e.GITHUB_API_URL??"https://api.github.com",c=e.GITHUB_REPOSITORY,b=e.GITHUB_SHA;if(!c||!b)return;let d={authorization:`Bearer ${o}`,accept:"application/vnd.github+json","content-type":"application/json"},p=n.map(h=>({path:h.file,start_line:h.line,end_line:h.endLine,...h.line===h.endLine?{start_column:h.column,end_column:h.endColumn}:{},annotation_level:h.severity==="error"?"failure":"warning",message:h.hint?`${h.message}
${h.hint}`:h.message,title:h.rule})),y=n.some(h=>h.severity==="error")?"failure":"success",f=s(h=>({title:`${n.length} playbook diagnostics`,summary:i.slice(0,65e3),annotations:h}),"output"),u=p.slice(0,U),g=await r(`${a}/repos/${c}/check-runs`,{method:"POST",headers:d,body:JSON.stringify({name:"Playbooks",head_sha:b,status:"completed",conclusion:y,output:f(u)})});if(!g.ok){l(`Could not publish a check run (HTTP ${g.status}); annotations above still apply.`);return}let{id:D}=await g.json();for(let h=U;h<p.length;h+=U)await r(`${a}/repos/${c}/check-runs/${D}`,{method:"PATCH",headers:d,body:JSON.stringify({output:f(p.slice(h,h+U))})});l(`Published check run ${D} with ${p.length} annotations.`)}s($t,"publishCheck");async function He(e){let o=s(m=>e.log(ee(m)),"say"),n=Q("paths").filter(Boolean),i=x("fail-on")||"error";if(i!=="error"&&i!=="warning")return L(`fail-on must be 'error' or 'warning', not '${i}'`),1;let r=(x("changed-only")||"false").toLowerCase()==="true",l=(await ne(e.workspace,n.length?n:Be,{ignore:de})).filter(m=>ie(m,()=>te(v(e.workspace,m),{root:e.workspace})??"")).sort(),a=re(l.map(m=>({file:m,source:oe(v(e.workspace,m),{root:e.workspace})})),{fileExists:s((m,w)=>le(v(e.workspace,m),w,e.workspace),"fileExists"),siblings:s(m=>se(v(e.workspace,m),e.workspace),"siblings"),known:await me()}),c=x("token");c&&Z(c);let b,d=s(()=>b??=Te(e.workspace,e.env),"repositoryRoot"),p=r?await je({env:e.env,workspace:e.workspace,token:c,fetch:e.fetch??fetch,warn:s(m=>H(m),"warn")}):void 0,y=p?.files&&kt(p.files,d().dir,e.workspace);p&&!p.pullRequest&&o("changed-only: the workflow does not run for a pull request; annotating every file.");let f=a.flatMap(m=>m.diagnostics),u=y?f.filter(m=>y.has(m.file)):f,g=Ie(u,y),D=[...g.filter(m=>m.severity==="error").slice(0,j),...g.filter(m=>m.severity==="warning").slice(0,j)];for(let m of D){let{message:w,properties:z}=ye(m);m.severity==="error"?X(w,z):H(w,z)}let h=f.length-D.length;h>0&&o(`${h} of ${f.length} diagnostics are not annotated (GitHub shows at most ${j} of a kind per step); the job summary lists all of them.`);for(let m of f.sort(T))o(`${m.file}:${m.line}:${m.column}: ${m.severity}: ${m.message} [${m.rule}]`);let K=St(a,y,h,e.env);e.env.GITHUB_STEP_SUMMARY&&await Y.addRaw(K).write();let{errors:_,warnings:R}=O(a);A("files",String(a.length)),A("errors",String(_)),A("warnings",String(R));let I=x("sarif-file");if(I){let m=v(e.workspace,I),{dir:w}=d();ht(gt(m),{recursive:!0}),ut(m,Re(a,{...Oe(),root:Pe(w,e.workspace)})),A("sarif-file",m),o(`Wrote SARIF for ${f.length} diagnostics to ${I} (paths from ${w}).`)}return c&&(x("checks")||"false").toLowerCase()==="true"&&await $t(e.env,c,Ie(f,y),K,e.fetch??fetch,o),l.length===0&&o(`No playbook files matched ${(n.length?n:Be).join(", ")}.`),_>0||i==="warning"&&R>0?(L(`${_} ${_===1?"error":"errors"} and ${R} ${R===1?"warning":"warnings"} in ${a.length} playbook ${a.length===1?"file":"files"}`),1):(o(`${a.length} playbook ${a.length===1?"file":"files"} checked: ${_} errors, ${R} warnings.`),0)}s(He,"run");var J=(process.env.INPUT_MODE??"").trim()||"validate";if(J==="bot"){let{runBot:e}=await import("./bot-FNVELWFG.js");process.exitCode=await e({env:process.env,log:s(o=>process.stdout.write(`${o}
`),"log")})}else J==="validate"?process.exitCode=await He({workspace:process.env.GITHUB_WORKSPACE??process.cwd(),env:process.env,log:s(e=>process.stdout.write(`${e}
`),"log")}):(L(`mode must be validate or bot, not ${JSON.stringify(J)}`),process.exitCode=1);
