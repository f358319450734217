/** The folders a repository keeps its playbooks in, looked in when no path is given. */
export const PLAYBOOK_FOLDERS: readonly string[] = [".github/playbooks", "playbooks"];
