import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

/** A modal confirmation with a destructive action. */
export function Confirm(props: {
  open: boolean;
  title: string;
  body: ReactNode;
  action: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog.Root open={props.open} onOpenChange={(o) => !o && props.onCancel()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/30" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 w-[420px] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-5 shadow-xl">
          <Dialog.Title className="text-base font-semibold">{props.title}</Dialog.Title>
          <Dialog.Description asChild>
            <div className="mt-2 text-sm text-slate-600">{props.body}</div>
          </Dialog.Description>
          <div className="mt-5 flex justify-end gap-2">
            <button className="rounded-md px-3 py-1.5 text-sm hover:bg-slate-100" onClick={props.onCancel}>
              Cancel
            </button>
            <button className="rounded-md bg-red-600 px-3 py-1.5 text-sm text-white hover:bg-red-700" onClick={props.onConfirm}>
              {props.action}
            </button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
