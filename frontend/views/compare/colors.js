// Kept for the Compare and Layouts modules: the collision-free run colours
// live in colors.js, shared by every view.
export { assignRunColors, runColor } from "../../colors.js";
