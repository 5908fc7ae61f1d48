// Kept for the Compare and Layouts modules: run colours live in colors.js
// (`colorFor`, the colours of the runs on screen), shared by every view.
export {
  assignRunColors,
  colorFor,
  runColor,
  styleFor,
} from "../../colors.js";
