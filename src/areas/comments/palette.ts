import type { StatusPatchValue, StatusValue } from "./objects.js";

/**
 * The statuses and priority colors a thread falls back on (docs/decisions.md "Thread statuses,
 * colors and iam"): every status and priority a thread returns carries a `color`, and a status
 * sent with only its `type` (the original's v1 update examples) becomes the thread's status of
 * that type or this default one.
 */

type StatusType = StatusValue["type"];

/** One status per type; `default` is the documented default of a new thread. */
export const DEFAULT_STATUSES: Readonly<Record<StatusType, StatusValue>> = {
  default: { id: "OPEN", name: "Open", type: "default", color: "#625DF5", lightColor: "#E7E8FA" },
  ongoing: {
    id: "IN_PROGRESS",
    name: "In Progress",
    type: "ongoing",
    color: "#FF9F0A",
    lightColor: "#FFF0D9",
  },
  terminal: { id: "RESOLVED", name: "Resolved", type: "terminal", color: "#00C48C", lightColor: "#E5F9F3" },
};

export const DEFAULT_STATUS = DEFAULT_STATUSES.default;

const PRIORITY_COLORS: Readonly<Record<string, { color: string; lightColor: string }>> = {
  P0: { color: "#FF4D4F", lightColor: "#FFE5E5" },
  P1: { color: "#FF9F0A", lightColor: "#FFF0D9" },
  P2: { color: "#2F80ED", lightColor: "#E3EEFD" },
};
const OTHER_PRIORITY = { color: "#8F8F8F", lightColor: "#EDEDED" };

/** A status with `color` and `lightColor`: as sent, else those of the default status of its id or type. */
export function colored(status: StatusValue): StatusValue {
  if (status.color !== undefined && status.lightColor !== undefined) return status;
  const known =
    Object.values(DEFAULT_STATUSES).find((s) => s.id === status.id) ?? DEFAULT_STATUSES[status.type];
  return {
    ...status,
    color: status.color ?? known.color!,
    lightColor: status.lightColor ?? known.lightColor!,
  };
}

/** A priority with `color` and `lightColor`: as sent, else P0/P1/P2's or a neutral gray. */
export function coloredPriority<T extends { id: string; color?: string; lightColor?: string }>(
  priority: T,
): T {
  if (priority.color !== undefined && priority.lightColor !== undefined) return priority;
  const known = PRIORITY_COLORS[priority.id] ?? OTHER_PRIORITY;
  return {
    ...priority,
    color: priority.color ?? known.color,
    lightColor: priority.lightColor ?? known.lightColor,
  };
}

/**
 * The status a thread takes from a sent one. With `id` and `name`: as sent (colored). With
 * `type` and no `id`: the thread's current status when it has that type, else the default
 * status of the type. With `id` but no `name`: the current or default status of that id (else
 * the id as name). The sent fields override the status so chosen.
 */
export function resolveStatus(current: StatusValue, sent: StatusPatchValue): StatusValue {
  if (sent.id !== undefined && sent.name !== undefined) return colored(sent as StatusValue);
  const defaults = Object.values(DEFAULT_STATUSES);
  const base =
    sent.id === undefined
      ? current.type === sent.type
        ? current
        : DEFAULT_STATUSES[sent.type]
      : current.id === sent.id
        ? current
        : (defaults.find((s) => s.id === sent.id) ?? { id: sent.id, name: sent.id, type: sent.type });
  const defined = Object.fromEntries(Object.entries(sent).filter(([, v]) => v !== undefined));
  return colored({ ...base, ...defined } as StatusValue);
}
