import type {
  ApproveResult, DescribeResult, DoctorResult, ExecuteInput, ExecuteResult, HistoryInput, HistoryResult, Outcome, PlanInput, PlanResult,
  QueryResult, ShowResult,
} from "./protocol.ts";

/** An MCP resource as the daemon lists it. */
export interface ResourceEntry { uri: string; name: string; title?: string | undefined; mimeType: string; description?: string | undefined }
/** An MCP resource template. */
export interface ResourceTemplateEntry { uriTemplate: string; name: string; title?: string | undefined; mimeType: string; description?: string | undefined }
/** The contents of one resource. */
export interface ResourceContents { uri: string; mimeType: string; text: string }

/**
 * The agent side of the daemon: what the MCP front may ask (DESIGN.md: "The MCP front talks to the daemon
 * only through one client interface"). Implemented in-process by the embedded daemon and over agent.sock
 * (or tcp:// + token) by the socket client; both answer with the schemas of ipc/protocol.ts. Methods never
 * reject for domain errors: they return `{ ok: false, error }` with a stable code.
 */
export interface DaemonClient {
  /** The actions offered on this host (filtered to its distro family) and the host identity. */
  describe(): Promise<DescribeResult>;
  /** Runs one read-only action by PascalCase name (the daemon refuses anything else). */
  query(action: string, args: unknown): Promise<QueryResult>;
  plan(input: PlanInput): Promise<Outcome<PlanResult>>;
  execute(input: ExecuteInput): Promise<Outcome<ExecuteResult>>;
  history(input: HistoryInput): Promise<Outcome<HistoryResult>>;
  doctor(): Promise<Outcome<DoctorResult>>;
  auditVerify(input: { since_seq?: number | undefined }): Promise<Outcome<Record<string, unknown>>>;
  planCommand(input: unknown): Promise<Outcome<Record<string, unknown>>>;
  listResources(): Promise<Outcome<ResourceEntry[]>>;
  listResourceTemplates(): Promise<Outcome<ResourceTemplateEntry[]>>;
  readResource(uri: string): Promise<Outcome<ResourceContents>>;
  close(): Promise<void>;
}

/** The admin side (admin.sock only): the human's approve/reject. Never reachable from the MCP front. */
export interface AdminClient {
  show(transactionId: string): Promise<Outcome<ShowResult>>;
  approve(transactionId: string, expectedPreviewHash?: string): Promise<Outcome<ApproveResult>>;
  reject(transactionId: string): Promise<Outcome<{ transaction_id: string; state: string }>>;
  close(): Promise<void>;
}
